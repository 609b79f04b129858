"""`db upgrade`."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from connectivity.operator.commands.context import settings
from connectivity.operator.migrations import MigrationError, upgrade

group = AppGroup("db", help="Database schema.")


@group.command("upgrade")
def db_upgrade():
    """Apply pending migrations of sql/migrations, in order, once each."""
    # Its own connections, not the pool's (operator/migrations.py says why).
    try:
        applied = upgrade(settings().database_url, direct_url=settings().database_direct_url)
    except MigrationError as exc:
        raise click.ClickException(str(exc)) from None
    listed = f": {', '.join(applied)}" if applied else ""
    click.echo(f"applied {len(applied)} migration(s){listed}")
