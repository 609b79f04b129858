"""Pruning in chunks, one transaction each: every delete stays short (row locks held briefly,
WAL written in steps), and a run that is stopped keeps what it did. The rules of what is old
enough live with each kind of data (ari/retention.py, availability/changes_retention.py,
events/retention.py)."""

from __future__ import annotations

from typing import Callable

from connectivity.store.database import Database


def prune_in_chunks(db: Database, prune_chunk: Callable[..., int], chunk: int, *args) -> int:
    """Run `prune_chunk(conn, *args, chunk)` in its own transaction until it prunes fewer than
    `chunk`; how many it pruned in all."""
    total = 0
    while True:
        pruned = db.run(prune_chunk, *args, chunk)
        total += pruned
        if pruned < chunk:
            return total


def prune_log(db: Database, prune_statement: Callable[..., list[dict]], retention_days: int,
              minimum_days: int, chunk: int, what: str) -> int:
    """A gapless log's retention (the change feed's, the event log's): `prune_statement(conn,
    retention_days=, max_count=)` deletes a chunk older than `retention_days` and raises the
    log's pruning marks, answering `pruned`. Refuses to keep less than `minimum_days` (the
    contract's). How many `what` were deleted."""
    if retention_days < minimum_days:
        raise ValueError(f"{what} are kept at least {minimum_days} days")

    def prune_chunk(conn, days: int, max_count: int) -> int:
        return prune_statement(conn, retention_days=days, max_count=max_count)[0]["pruned"]
    return prune_in_chunks(db, prune_chunk, chunk, retention_days)
