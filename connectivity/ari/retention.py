"""Retention of accepted batches: after `retention_days`, a finished batch's items (up to 5,000
JSON objects each) are dropped; its outcome (status, counts, rejected rows) is kept for good, so
`GET /ari/batches/{batchId}` answers the same. Run by operators: `flask --app app ari
prune-items` (docs/operations.md, section 3)."""

from __future__ import annotations

from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.store.retention import prune_in_chunks

DEFAULT_RETENTION_DAYS = 30
# Batches per transaction: each transaction stays short (row locks held briefly, WAL written in
# steps) and a run that is stopped keeps what it did.
PRUNE_CHUNK = 500


def _prune_chunk(conn, retention_days: int, max_count: int) -> int:
    return len(queries().ari.prune_batch_items(conn, retention_days=retention_days,
                                              max_count=max_count))


def prune_batch_items(db: Database, retention_days: int = DEFAULT_RETENTION_DAYS,
                      chunk: int = PRUNE_CHUNK) -> int:
    """Drop the items of every finished batch applied more than `retention_days` ago; the
    number of batches pruned."""
    return prune_in_chunks(db, _prune_chunk, chunk, retention_days)
