"""Ending the sessions a pool holds idle, as a PostgreSQL restart or an idle timeout does, so that
a test can show what the service does with the broken connections it finds next."""

from __future__ import annotations

import psycopg
from psycopg_pool import ConnectionPool


def end_idle_sessions(pool: ConnectionPool, database_url: str, count: int) -> list[int]:
    """Make the pool hold at least `count` connections, put them back idle, and end their
    sessions from a connection of its own; returns the ended backends' pids."""
    held = [pool.getconn() for _ in range(count)]
    backends = [conn.info.backend_pid for conn in held]
    for conn in held:
        pool.putconn(conn)
    with psycopg.connect(database_url, autocommit=True) as admin:
        for backend in backends:
            # With a timeout it returns once the backend is gone. The cast: Citus adds
            # pg_terminate_backend(bigint, bigint) for its global pids.
            admin.execute("SELECT pg_terminate_backend(CAST(%s AS integer), 5000)", (backend,))
    return backends
