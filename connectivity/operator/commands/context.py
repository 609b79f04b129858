"""What a command reads of the app it runs in (the FlaskGroup pushes the app context)."""

from __future__ import annotations

from typing import Callable

import click
from flask import current_app
from flask.cli import AppGroup

from connectivity.settings import Settings
from connectivity.store.database import Database
from connectivity.store.read_fence import ReadsNotFenced
from connectivity.web.services import services

# The app's extension holding why it was built without its settings (operator/__init__.py
# cli_without_settings): a command that needs them then says what to set.
SETTINGS_MISSING = "connectivity.settings_missing"


def _services():
    missing = current_app.extensions.get(SETTINGS_MISSING)
    if missing is not None:
        raise missing
    return services()


def database() -> Database:
    return _services().db


def settings() -> Settings:
    return _services().settings


def fence_reads(done: str) -> None:
    """After a committed change that reads must reflect once the command exits 0 (contract
    13.1): the read fence is moved again, and the command fails when it could not be (the
    use case's own move only warns, as a route's must: store/read_fence.py)."""
    try:
        _services().read_fence.move()
    except ReadsNotFenced as exc:
        raise click.ClickException(f"{done}, but {exc}; run the command again once Redis "
                                   "answers") from None


def add_log_prune(group: AppGroup, prune: Callable[[Database, int], int], minimum_days: int,
                  item: str) -> None:
    """`<group> prune [--days N]` for a gapless log (the change feed, the event log): deletes the
    `item`s older than N days (at least `minimum_days`, the contract's)."""

    @group.command("prune", help=f"Delete {item}s older than --days; cursors from before answer "
                                 "410 cursor_expired.")
    @click.option("--days", "retention_days", type=click.IntRange(min=minimum_days),
                  default=minimum_days, show_default=True,
                  help=f"keep the {item}s of the last DAYS days (at least {minimum_days})")
    def log_prune(retention_days):
        # Given the Database, not one transaction: it prunes in short transactions of its own.
        pruned = prune(database(), retention_days)
        click.echo(f"pruned {pruned} {item}(s) older than {retention_days} day(s)")
