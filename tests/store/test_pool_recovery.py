"""store/database.py: after PostgreSQL ended every session (a restart does), a pool that holds
several idle connections gives a working one at once, not a PoolTimeout. psycopg_pool alone
tries its broken connections one at a time with growing sleeps (1, 2, 4 s...) between them: a
pool of four idle connections gave none within its 5 s timeout (the Citus pass's order-dependent
failure of tests/availability/test_search_model.py, whose session-wide app's pool had grown)."""

from __future__ import annotations

import pytest

from connectivity.web.services import services_of

from tests.conftest import through_pgbouncer
from tests.support.ended_sessions import end_idle_sessions

IDLE = 5  # more than psycopg_pool's own retries reach within the pool's 5 s timeout


def test_a_pool_whose_idle_connections_were_all_ended_gives_a_working_one(make_app):
    if through_pgbouncer():
        # A connection's backend_pid is then PgBouncer's own key, not a server process to end;
        # and a restart behind a pooler ends PgBouncer's server connections, not the pool's.
        pytest.skip("through PgBouncer there are no sessions of the pool's own to end")
    application = make_app()
    database = services_of(application).db
    pool = database.pool
    with database.connection() as conn:
        conn.execute("SELECT 1")  # opens the pool
    backends = end_idle_sessions(pool, services_of(application).settings.database_url, IDLE)
    with database.connection() as conn:
        assert conn.execute("SELECT 1 AS one").fetchone()["one"] == 1
        assert conn.info.backend_pid not in backends
