"""Pruning in chunks, one transaction each: every delete stays short (row locks held briefly,
WAL written in steps), and a run that is stopped keeps what it did. The rules of what is old
enough live with each kind of data (ari/retention.py, availability/changes_retention.py)."""

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
