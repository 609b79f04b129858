"""Retention of the change feed: changes older than `retention_days` (at least 7, contract
11.3) are deleted, and the highest transaction id deleted is kept as the mark below which a
cursor is answered 410 cursor_expired. Run by operators: `flask --app app changes prune`
(docs/operations.md, "The change feed")."""

from __future__ import annotations

from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.store.retention import prune_log

MIN_RETENTION_DAYS = 7
# Changes per transaction: each delete stays short, and a run that is stopped keeps what it did.
PRUNE_CHUNK = 5000


def prune_changes(db: Database, retention_days: int = MIN_RETENTION_DAYS,
                  chunk: int = PRUNE_CHUNK) -> int:
    """Delete the changes older than `retention_days`; how many were deleted."""
    return prune_log(db, queries().availability.prune_changes, retention_days,
                     MIN_RETENTION_DAYS, chunk, "changes")
