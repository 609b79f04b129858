"""The operators' CLI of contract section 9: `flask --app app db|catalog|keys|distribution ...`,
`privacy purge`, `hotel-bookings overdue`, and `citus distribute` (docs/operations.md 6.4).

commands/ holds one module per command group, each command a thin shell over one use case; the
modules beside it (catalog, keys, key_rotation, migrations, citus, demo_ari, privacy) are the
operators' use cases."""

from __future__ import annotations

import click
from flask import Flask
from flask.cli import AppGroup, FlaskGroup

from connectivity.operator.commands import (ari, catalog, changes, citus, db, distribution,
                                            events, hotel_bookings, keys, privacy,
                                            reconciliation, webhooks)
from connectivity.operator.commands.context import SETTINGS_MISSING
from connectivity.settings import Settings, SettingsError

# What an operator types to give the CLI its settings (the README's "Operators").
HOW_TO_SET = ("set them in the environment: `set -a; . .local/env; set +a` (written by a running "
              "`make run`), or DATABASE_URL=postgresql://... REDIS_URL=redis://... "
              "SECRET_KEY=... before the command")


def register_cli(app: Flask) -> None:
    for command_group in (db, catalog, keys, distribution, ari, changes, events, reconciliation,
                          hotel_bookings, citus, privacy, webhooks):
        app.cli.add_command(command_group.group)


class SettingsMissing(click.ClickException):
    """The settings are missing or bad while the flask CLI finds its commands (`--help`, or the
    command typed being looked up): the app to give it is `cli_without_settings(this)`."""


def settings_from_env() -> Settings:
    """Settings.from_env(). Under the flask CLI (a click context is active while it loads the
    app) a bad setting is one line and exit status 1, not a traceback: an operator needs to
    know what to set, not where it was read. Elsewhere (gunicorn, the worker) it raises."""
    try:
        return Settings.from_env()
    except SettingsError as exc:
        context = click.get_current_context(silent=True)
        if context is None:
            raise
        # In flask's own context the CLI is finding its commands; in a command's (`run`,
        # `routes`, `shell`) the app is needed whole.
        error = SettingsMissing if isinstance(context.command, FlaskGroup) else click.ClickException
        raise error(f"{exc}; {HOW_TO_SET}") from None


class _CommandsWithoutSettings(AppGroup):
    """The CLI of an app built without its settings: lists the operator commands (and says on
    stderr that they need the settings to run); a command that is not one of them (`openapi`,
    which needs the app whole) answers with what to set, as does any that reads the database
    or the settings (commands/context.py)."""

    def __init__(self, missing: SettingsMissing):
        super().__init__()
        self.missing = missing

    def list_commands(self, ctx: click.Context) -> list[str]:
        click.echo("Note: these commands need the settings to run (and `openapi` is listed once "
                   f"they are set): {self.missing.message}", err=True)
        return super().list_commands(ctx)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        command = super().get_command(ctx, name)
        if command is None:
            raise self.missing
        return command


def cli_without_settings(missing: SettingsMissing) -> Flask:
    """An app holding only the operator commands, for `flask --app app --help` in a shell
    without DATABASE_URL, REDIS_URL or SECRET_KEY: the commands listed, exit status 0, no
    traceback; running one that needs the settings is one line and exit status 1."""
    app = Flask("connectivity", static_folder=None)
    app.cli = _CommandsWithoutSettings(missing)
    app.extensions[SETTINGS_MISSING] = missing
    register_cli(app)
    return app
