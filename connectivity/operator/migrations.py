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

Behind a transaction-pooling PgBouncer the transactional migrations run as they are (their
advisory lock and SET LOCAL last as long as their transaction, which PgBouncer keeps on one
server connection), but a no-transaction one cannot: its session lock and settings would stay
on whichever server connection ran them. Those run on `direct_url` (DATABASE_DIRECT_URL), a
connection that bypasses the pooler; without one the upgrade stops before them and says so.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TypeVar

from connectivity.store.database import behind_pooler, unpooled_connection
from connectivity.store.queries import MIGRATIONS_DIR, queries

if TYPE_CHECKING:
    import psycopg

NO_TRANSACTION = re.compile(r"^--\s*migration:\s*no-transaction\s*$", re.MULTILINE)
# Statements of a no-transaction migration end with ';' at the end of a line.
STATEMENT_END = re.compile(r";[ \t]*(?:--[^\n]*)?$", re.MULTILINE)


# While another upgrade holds the migrations' lock, how long to wait before trying again. The
# wait is never inside a transaction: the other upgrade's concurrent index build waits for every
# transaction open when it starts, so one waiting there for the lock would deadlock with it.
LOCK_RETRY_SECONDS = 0.2

T = TypeVar("T")


class MigrationError(RuntimeError):
    pass


def upgrade(database_url: str, directory: Path = MIGRATIONS_DIR, *,
            direct_url: str | None = None) -> list[str]:
    """Apply the pending migrations; returns the versions applied by this call."""
    q = queries().operator
    applied_now: list[str] = []
    pooled = direct_url is None and behind_pooler(database_url)
    # prepare_threshold=None: no server-side prepared statements, which a transaction pooler
    # would lose between transactions (and a dozen statements gain nothing from them).
    with unpooled_connection(database_url, prepare_threshold=None) as conn:
        # Under the lock: two first upgrades at once would otherwise both create the ledger
        # (CREATE TABLE IF NOT EXISTS is not safe against a concurrent one).
        _locked_transaction(conn, lambda: q.create_ledger(conn))
        for path in sorted(directory.glob("*.sql")):
            text = path.read_text()
            if NO_TRANSACTION.search(text):
                with conn.transaction():
                    if _is_applied(conn, path.stem):
                        continue
                if pooled:
                    raise MigrationError(
                        f"{path.stem} runs outside a transaction, which needs a session of its "
                        "own: DATABASE_URL goes through a transaction pooler, so set "
                        "DATABASE_DIRECT_URL to a connection that bypasses it")
                # A connection of its own, in autocommit from the start: never one left in a
                # transaction by an earlier read.
                with unpooled_connection(direct_url or database_url,
                                         autocommit=True) as session:
                    applied = _apply_outside_a_transaction(session, path.stem, text)
            else:
                applied = _apply_in_a_transaction(conn, path.stem, text)
            if applied:
                applied_now.append(path.stem)
    return applied_now


def _locked_transaction(conn: psycopg.Connection, work: Callable[[], T]) -> T:
    """`work()` in a transaction holding the migrations' lock (released at its end)."""
    while True:
        with conn.transaction():
            if queries().operator.try_lock_migrations(conn):
                return work()
        time.sleep(LOCK_RETRY_SECONDS)


def _apply_in_a_transaction(conn: psycopg.Connection, version: str, text: str) -> bool:
    q = queries().operator

    def apply() -> bool:
        if _is_applied(conn, version):
            return False
        q.limit_migration_locks(conn)
        conn.execute(text)
        q.record_version(conn, version=version)
        return True
    return _locked_transaction(conn, apply)


def _apply_outside_a_transaction(conn: psycopg.Connection, version: str, text: str) -> bool:
    q = queries().operator
    while not q.try_lock_migrations_for_session(conn):
        time.sleep(LOCK_RETRY_SECONDS)
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
