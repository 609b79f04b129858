"""store/database.py: after PostgreSQL ended every session (a restart does), a pool that holds
several idle connections gives a working one at once, not a PoolTimeout. psycopg_pool alone
tries its broken connections one at a time with growing sleeps (1, 2, 4 s...) between them: a
pool of four idle connections gave none within its 5 s timeout (the Citus pass's order-dependent
failure of tests/availability/test_search_model.py, whose session-wide app's pool had grown)."""

from __future__ import annotations

import psycopg

from connectivity.web.services import services_of

IDLE = 5  # more than psycopg_pool's own retries reach within the pool's 5 s timeout


def test_a_pool_whose_idle_connections_were_all_ended_gives_a_working_one(make_app):
    application = make_app()
    database = services_of(application).db
    pool = database.pool
    with database.connection() as conn:
        conn.execute("SELECT 1")  # opens the pool
    held = [pool.getconn() for _ in range(IDLE)]
    backends = [conn.info.backend_pid for conn in held]
    for conn in held:
        pool.putconn(conn)
    with psycopg.connect(services_of(application).settings.database_url,
                         autocommit=True) as admin:
        for backend in backends:
            # With a timeout it returns once the backend is gone. The cast: Citus adds
            # pg_terminate_backend(bigint, bigint) for its global pids.
            admin.execute("SELECT pg_terminate_backend(CAST(%s AS integer), 5000)", (backend,))
    with database.connection() as conn:
        assert conn.execute("SELECT 1 AS one").fetchone()["one"] == 1
        assert conn.info.backend_pid not in backends
