"""The operators' CLI of contract section 9: `flask --app app db|catalog|keys|distribution ...`,
`privacy purge`, `hotel-bookings overdue`, and `citus distribute` (docs/operations.md 6.4).

commands/ holds one module per command group, each command a thin shell over one use case; the
modules beside it (catalog, keys, key_rotation, migrations, citus, demo_ari, privacy) are the
operators' use cases."""

from __future__ import annotations

import click
from flask import Flask

from connectivity.operator.commands import (ari, catalog, changes, citus, db, distribution,
                                            events, hotel_bookings, keys, privacy,
                                            reconciliation, webhooks)
from connectivity.settings import Settings, SettingsError

# What an operator types to give the CLI its settings (the README's "Operators").
HOW_TO_SET = ("set them in the environment: `set -a; . .local/env; set +a` (written by a running "
              "`make run`), or DATABASE_URL=postgresql://... REDIS_URL=redis://... "
              "SECRET_KEY=... before the command")


def register_cli(app: Flask) -> None:
    for command_group in (db, catalog, keys, distribution, ari, changes, events, reconciliation,
                          hotel_bookings, citus, privacy, webhooks):
        app.cli.add_command(command_group.group)


def settings_from_env() -> Settings:
    """Settings.from_env(). Under the flask CLI (a click context is active while it loads the
    app) a bad setting is one line and exit status 1, not a traceback: an operator needs to
    know what to set, not where it was read. Elsewhere (gunicorn, the worker) it raises."""
    try:
        return Settings.from_env()
    except SettingsError as exc:
        if click.get_current_context(silent=True) is None:
            raise
        raise click.ClickException(f"{exc}; {HOW_TO_SET}") from None
