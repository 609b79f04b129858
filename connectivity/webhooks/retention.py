"""Retention of the delivery rows: delivered and failed deliveries older than `retention_days`
are deleted (`flask --app app webhooks prune`, daily; docs/operations.md, "Webhooks"). A
delivery is listed and replayable for as long as its row is kept; pending ones are never
pruned."""

from __future__ import annotations

from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.store.retention import prune_in_chunks

DEFAULT_RETENTION_DAYS = 30
PRUNE_CHUNK = 5000


def _prune_chunk(conn, retention_days: int, max_count: int) -> int:
    return queries().webhooks.prune_webhook_deliveries(
        conn, retention_days=retention_days, max_count=max_count)[0]["pruned"]


def prune_deliveries(db: Database, retention_days: int = DEFAULT_RETENTION_DAYS,
                     chunk: int = PRUNE_CHUNK) -> int:
    """Delete the delivered and failed deliveries older than `retention_days`; how many."""
    if retention_days < 1:
        raise ValueError("deliveries are kept at least 1 day")
    return prune_in_chunks(db, _prune_chunk, chunk, retention_days)
