"""`db upgrade`: apply sql/migrations/*.sql in order, each once, recorded in the
schema_migrations ledger.

A migration runs in its own transaction with a lock timeout, so it applies whole or not at all.
One that cannot run in a transaction block, such as `CREATE INDEX CONCURRENTLY` (which builds an
index on a big table without blocking its writers), says so with a header line

    -- migration: no-transaction

and then runs statement by statement, each on its own, under a session advisory lock. Such a
migration is not atomic, so it is written to be run again: a concurrent index build that failed
leaves an INVALID index behind, which `CREATE INDEX CONCURRENTLY IF NOT EXISTS` would skip and
call done. So the runner refuses to record it while any index is invalid, and the migration
drops what a failed run may have left first (`DROP INDEX CONCURRENTLY IF EXISTS ...;`).
"""

from __future__ import annotations

import re
from pathlib import Path

import psycopg

from ..queries import MIGRATIONS_DIR, queries

NO_TRANSACTION = re.compile(r"^--\s*migration:\s*no-transaction\s*$", re.MULTILINE)
# Statements of a no-transaction migration end with ';' at the end of a line.
STATEMENT_END = re.compile(r";[ \t]*(?:--[^\n]*)?$", re.MULTILINE)


class MigrationError(RuntimeError):
    pass


def upgrade(database_url: str, directory: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply the pending migrations; returns the versions applied by this call."""
    q = queries().operator
    applied_now: list[str] = []
    with psycopg.connect(database_url) as conn:
        with conn.transaction():
            q.create_ledger(conn)
        for path in sorted(directory.glob("*.sql")):
            text = path.read_text()
            if NO_TRANSACTION.search(text):
                applied = _apply_outside_a_transaction(conn, path.stem, text)
            else:
                applied = _apply_in_a_transaction(conn, path.stem, text)
            if applied:
                applied_now.append(path.stem)
    return applied_now


def _apply_in_a_transaction(conn: psycopg.Connection, version: str, text: str) -> bool:
    q = queries().operator
    with conn.transaction():
        q.lock_migrations(conn)
        if _is_applied(conn, version):
            return False
        q.limit_migration_locks(conn)
        conn.execute(text)
        q.record_version(conn, version=version)
    return True


def _apply_outside_a_transaction(conn: psycopg.Connection, version: str, text: str) -> bool:
    q = queries().operator
    conn.autocommit = True
    try:
        q.lock_migrations_for_session(conn)
        try:
            if _is_applied(conn, version):
                return False
            # A concurrent build waits for every transaction older than itself: no statement
            # timeout, but a lock it cannot get within the limit fails it (to be run again).
            q.limit_session_locks(conn)
            for statement in statements(text):
                conn.execute(statement)
            invalid = [row[0] for row in q.invalid_indexes(conn)]
            if invalid:
                raise MigrationError(
                    f"{version}: index(es) {', '.join(invalid)} are INVALID (a concurrent build "
                    "failed); not recorded: drop them, or run `db upgrade` again if the "
                    "migration drops them first")
            q.record_version(conn, version=version)
            return True
        finally:
            q.reset_session_locks(conn)
            q.unlock_migrations_for_session(conn)
    finally:
        conn.autocommit = False


def statements(text: str) -> list[str]:
    """The statements of a no-transaction migration, each ending with ';' at a line's end."""
    parts, start = [], 0
    for end in STATEMENT_END.finditer(text):
        parts.append(text[start:end.start()])
        start = end.end()
    parts.append(text[start:])
    found = [part.strip() for part in parts if _has_sql(part)]
    if not found:
        raise MigrationError("a no-transaction migration with no statement")
    return found


def _has_sql(part: str) -> bool:
    return any(line.strip() and not line.strip().startswith("--")
               for line in part.splitlines())


def _is_applied(conn: psycopg.Connection, version: str) -> bool:
    return version in {row[0] for row in queries().operator.applied_versions(conn)}
