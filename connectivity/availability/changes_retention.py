"""Retention of the change feed: changes older than `retention_days` (at least 7, contract
11.3) are deleted, and the highest transaction id deleted is kept as the mark below which a
cursor is answered 410 cursor_expired. Run by operators: `flask --app app changes prune`
(docs/operations.md, "The change feed")."""

from __future__ import annotations

from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.store.retention import prune_in_chunks

MIN_RETENTION_DAYS = 7
# Changes per transaction: each delete stays short, and a run that is stopped keeps what it did.
PRUNE_CHUNK = 5000


def _prune_chunk(conn, retention_days: int, max_count: int) -> int:
    return queries().availability.prune_changes(conn, retention_days=retention_days,
                                                max_count=max_count)[0]["pruned"]


def prune_changes(db: Database, retention_days: int = MIN_RETENTION_DAYS,
                  chunk: int = PRUNE_CHUNK) -> int:
    """Delete the changes older than `retention_days`; how many were deleted."""
    if retention_days < MIN_RETENTION_DAYS:
        raise ValueError(f"changes are kept at least {MIN_RETENTION_DAYS} days")
    return prune_in_chunks(db, _prune_chunk, chunk, retention_days)
