"""Retention of the event log: events older than `retention_days` (at least 30, contract 12.2)
are deleted, and the highest transaction id deleted is kept as the mark below which a cursor is
answered 410 cursor_expired. Run by operators: `flask --app app events prune`
(docs/operations.md, "The event log")."""

from __future__ import annotations

from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.store.retention import prune_in_chunks

MIN_RETENTION_DAYS = 30
# Events per transaction: each delete stays short, and a run that is stopped keeps what it did.
PRUNE_CHUNK = 5000


def _prune_chunk(conn, retention_days: int, max_count: int) -> int:
    return queries().events.prune_events(conn, retention_days=retention_days,
                                         max_count=max_count)[0]["pruned"]


def prune_events(db: Database, retention_days: int = MIN_RETENTION_DAYS,
                 chunk: int = PRUNE_CHUNK) -> int:
    """Delete the events older than `retention_days`; how many were deleted."""
    if retention_days < MIN_RETENTION_DAYS:
        raise ValueError(f"events are kept at least {MIN_RETENTION_DAYS} days")
    return prune_in_chunks(db, _prune_chunk, chunk, retention_days)
