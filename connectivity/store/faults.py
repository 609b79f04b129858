"""Which database errors mean "unreachable: retry shortly" (a 503 with Retry-After on the web, a
retry in the worker) rather than a defect (a 500): the one home of that rule.

Plain PostgreSQL reports a lost or refused connection as an OperationalError (SQLSTATE classes
08, 53, 57, 58). On a Citus cluster (docs/operations.md 6.4) the coordinator answers for its
workers, and a worker that is down or stopping reaches the client in several shapes: 08006
("connection to the remote node ... failed"), the worker's own 57P01 forwarded, or XX000, an
InternalError, when the lost connection was part of a transaction being committed ("failure on
connection marked as essential") or of a COPY. Those XX000s are recognised by their message,
which Citus does not vary (src/backend/distributed, v13.2)."""

from __future__ import annotations

import psycopg
from psycopg_pool import PoolTimeout

# Citus's messages for a worker it could not reach, when not raised as a connection failure.
CITUS_NODE_UNREACHABLE = (
    "failure on connection marked as essential",
    "could not connect to any active placements",
    "could not establish any connections to the node",
    "connection to the remote node",
    "could not connect to node",
    # A worker lost while it commits (the stopped-worker test in tests/system/citus can meet it).
    # Citus raises it too for a deferred constraint failing at commit; this schema defers none
    # (sql/migrations/0011 drops the one deferred key), so here it means a node gone at the
    # commit. The outcome on that node is then unknown: a retry of the same reference is
    # answered as a replay.
    "could not commit transaction for shard",
    # Ours: the change feed's horizon function (migration 0013) names the worker it could not
    # ask. Search's read model and the feeds read it before anything else.
    "change feed: no horizon from",
)


def unreachable(error: BaseException) -> bool:
    if isinstance(error, (psycopg.OperationalError, PoolTimeout)):
        return True
    if isinstance(error, psycopg.Error):
        message = (error.diag.message_primary or str(error)).lower()
        return any(pattern in message for pattern in CITUS_NODE_UNREACHABLE)
    return False
