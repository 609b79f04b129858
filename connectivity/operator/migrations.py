"""`db upgrade`: apply sql/migrations/*.sql in order, each once, each in its own transaction with
a lock timeout, recorded in the schema_migrations ledger."""

from __future__ import annotations

import psycopg

from ..queries import MIGRATIONS_DIR, queries


def upgrade(database_url: str) -> list[str]:
    """Apply the pending migrations; returns the versions applied by this call."""
    q = queries().operator
    applied_now: list[str] = []
    with psycopg.connect(database_url) as conn:
        with conn.transaction():
            q.create_ledger(conn)
        for path in sorted(MIGRATIONS_DIR.glob("*.sql")):
            version = path.stem
            with conn.transaction():
                q.lock_migrations(conn)
                if version in {row[0] for row in q.applied_versions(conn)}:
                    continue
                q.limit_migration_locks(conn)
                conn.execute(path.read_text())
                q.record_version(conn, version=version)
                applied_now.append(version)
    return applied_now
