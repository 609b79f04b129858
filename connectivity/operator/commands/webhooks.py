"""`webhooks prune`."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from connectivity.operator.commands.context import database
from connectivity.webhooks.retention import DEFAULT_RETENTION_DAYS, prune_deliveries

group = AppGroup("webhooks", help="Webhook deliveries.")


@group.command("prune")
@click.option("--days", "retention_days", type=click.IntRange(min=1),
              default=DEFAULT_RETENTION_DAYS, show_default=True,
              help="keep the deliveries of the last DAYS days (pending ones are always kept)")
def webhooks_prune(retention_days):
    """Delete delivered and failed deliveries older than --days (daily)."""
    pruned = prune_deliveries(database(), retention_days)
    click.echo(f"pruned {pruned} webhook deliveries older than {retention_days} day(s)")
