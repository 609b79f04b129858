"""`citus distribute`."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from connectivity.operator.citus import DEFAULT_SHARD_COUNT, DistributionBusy, distribute_database
from connectivity.operator.commands.context import settings

group = AppGroup("citus", help="Placing the tables on a Citus cluster.")


@group.command("distribute")
@click.option("--shard-count", type=click.IntRange(1, 1024), default=DEFAULT_SHARD_COUNT,
              show_default=True, envvar="CITUS_SHARD_COUNT",
              help="Shards of each colocation group created by this run (env CITUS_SHARD_COUNT).")
def citus_distribute(shard_count):
    """Place the tables on Citus as connectivity/store/sharding.py plans (idempotent; a no-op on
    plain PostgreSQL)."""
    # A session of its own, not the pool's (operator/citus.py says why).
    try:
        distributed = distribute_database(settings().database_url, shard_count,
                                          direct_url=settings().database_direct_url)
    except DistributionBusy as exc:
        raise click.ClickException(str(exc)) from None
    if distributed is None:
        click.echo("plain PostgreSQL (no citus extension in this database): nothing to "
                   "distribute, nothing changed")
        return
    version, results = distributed
    click.echo(f"Citus {version}:")
    for placement in results:
        click.echo("  " + placement.line())
    failed = [p.table for p in results if p.failed]
    if failed:
        raise click.ClickException(f"{len(failed)} table(s) cannot be placed: "
                                   f"{', '.join(failed)}; nothing was changed (all or nothing)")
    placed = sum(p.outcome == "placed" for p in results)
    click.echo(f"{placed} table(s) placed" if placed else "nothing to do: already distributed")
