"""`ari prune-items`."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from connectivity.ari.idempotency import RETENTION_HOURS, prune_idempotency_keys
from connectivity.ari.retention import DEFAULT_RETENTION_DAYS, prune_batch_items
from connectivity.operator.commands.context import database

group = AppGroup("ari", help="Accepted ARI batches.")


@group.command("prune-items")
@click.option("--older-than-days", "retention_days", type=click.IntRange(1, 36500),
              default=DEFAULT_RETENTION_DAYS, show_default=True,
              help="Prune batches applied more than this many days ago.")
def ari_prune_items(retention_days):
    """Drop the items of old finished ARI batches (every batch keeps its outcome), and forget
    Idempotency-Keys used more than 24 hours ago."""
    # Given the Database, not one transaction: it prunes in short transactions of its own.
    pruned = prune_batch_items(database(), retention_days)
    click.echo(f"pruned the items of {pruned} batch(es) applied more than {retention_days} "
               "day(s) ago")
    forgotten = prune_idempotency_keys(database())
    click.echo(f"forgot {forgotten} Idempotency-Key(s) used more than {RETENTION_HOURS} "
               "hour(s) ago")
