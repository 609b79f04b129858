"""`events prune`."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from connectivity.events.retention import MIN_RETENTION_DAYS, prune_events
from connectivity.operator.commands.context import database

group = AppGroup("events", help="The event log (GET /events, webhooks).")


@group.command("prune")
@click.option("--days", "retention_days", type=click.IntRange(min=MIN_RETENTION_DAYS),
              default=MIN_RETENTION_DAYS, show_default=True,
              help=f"keep the events of the last DAYS days (at least {MIN_RETENTION_DAYS})")
def events_prune(retention_days):
    """Delete events older than --days; cursors from before answer 410 cursor_expired."""
    # Given the Database, not one transaction: it prunes in short transactions of its own.
    pruned = prune_events(database(), retention_days)
    click.echo(f"pruned {pruned} event(s) older than {retention_days} day(s)")
