"""What the tests that hold locks read of the sessions waiting for them, the same on plain
PostgreSQL and on a Citus cluster (PCS_TEST_ON_CITUS).

On Citus a statement's row locks are taken on the worker holding the row's shard, by a backend
the coordinator opened for the client's session: the wait shows in that worker's
pg_stat_activity, while the coordinator's shows the session waiting on its worker's answer.
`citus_stat_activity` (Citus 11 and later) gathers every node's pg_stat_activity and gives each
backend the global pid of the client session it works for, so a session waits for a lock when
it, or any backend working for it on any node, does. A lock taken on the coordinator itself (an
advisory lock) is found the same way."""

from __future__ import annotations

import psycopg
from psycopg.rows import dict_row

ON_ONE_NODE = """
SELECT application_name, query, state, coalesce(wait_event_type = 'Lock', false) AS waiting
  FROM pg_stat_activity
 WHERE datname = current_database() AND pid <> pg_backend_pid()
   AND backend_type = 'client backend'
"""

# is_worker_query is false for the client's own backend on the coordinator, true for the
# backends the coordinator opened on the nodes for it (which share its global_pid).
ON_A_CLUSTER = """
WITH activity AS MATERIALIZED (
    SELECT global_pid, is_worker_query, application_name, query, state, wait_event_type,
           backend_type
      FROM citus_stat_activity
     WHERE datname = current_database()
)
SELECT s.application_name, s.query, s.state,
       coalesce(bool_or(a.wait_event_type = 'Lock'), false) AS waiting
  FROM activity s
  JOIN activity a ON a.global_pid = s.global_pid
 WHERE s.is_worker_query IS FALSE AND s.backend_type = 'client backend'
   AND s.global_pid <> citus_backend_gpid()
 GROUP BY s.global_pid, s.application_name, s.query, s.state
"""


def on_a_cluster(conn: psycopg.Connection) -> bool:
    return conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'").fetchone() \
        is not None


def sessions(database_url: str) -> list[dict]:
    """Every other client session of this database: its application_name, its query (the
    client's statement), its state and whether it waits for a lock (false, not NULL, for a
    session running without a wait event)."""
    with psycopg.connect(database_url, autocommit=True, row_factory=dict_row) as conn:
        return conn.execute(ON_A_CLUSTER if on_a_cluster(conn) else ON_ONE_NODE).fetchall()


def waiting(database_url: str, *, application_name: str | None = None,
            query_has: str | None = None) -> list[dict]:
    """The sessions waiting for a lock, of that application or whose statement holds that
    text."""
    return [s for s in sessions(database_url) if s["waiting"]
            and (application_name is None or s["application_name"] == application_name)
            and (query_has is None or query_has in s["query"])]
