"""`changes prune`."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from connectivity.availability.changes_retention import MIN_RETENTION_DAYS, prune_changes
from connectivity.operator.commands.context import database

group = AppGroup("changes", help="The change feed (GET /availability/changes).")


@group.command("prune")
@click.option("--days", "retention_days", type=click.IntRange(min=MIN_RETENTION_DAYS),
              default=MIN_RETENTION_DAYS, show_default=True,
              help=f"keep the changes of the last DAYS days (at least {MIN_RETENTION_DAYS})")
def changes_prune(retention_days):
    """Delete changes older than --days; cursors from before answer 410 cursor_expired."""
    # Given the Database, not one transaction: it prunes in short transactions of its own.
    pruned = prune_changes(database(), retention_days)
    click.echo(f"pruned {pruned} change(s) older than {retention_days} day(s)")
