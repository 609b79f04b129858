"""Emptying the database before each test (conftest.py `clean_state`): a DELETE of each table
that holds rows, the tables that reference others first, then every sequence that moved set back
to its start, as TRUNCATE ... RESTART IDENTITY leaves them.

Why not TRUNCATE: it gives each of the 30 tables and their indexes new files, rows or not: 77 ms
before every test on plain PostgreSQL and 555 ms on a Citus cluster of 4 shards, against 17 and
94 ms this way with the demo catalogue loaded (2026-11-29). No table has a DELETE trigger; the
one table that references itself (reservation_versions) does so with NO ACTION, checked at the
statement's end."""

from __future__ import annotations

import psycopg
from psycopg import sql

# The schema's own bookkeeping, and the probes: where the cluster's nodes are (migration 0039),
# not a test's state.
KEPT = ("schema_migrations", "change_log_probes")


def empty(conn: psycopg.Connection) -> None:
    """On an autocommit connection: each DELETE on its own (on Citus a reference table may not
    be written after a parallel write to a distributed table in one transaction). The order is
    read anew each time: a test may have made a table."""
    order = _emptying_order(conn)
    holding = {r[0] for r in conn.execute(sql.SQL(" UNION ALL ").join(
        sql.SQL("SELECT {} FROM (SELECT 1 FROM {} LIMIT 1) AS one").format(
            sql.Literal(t), sql.Identifier(t)) for t in order))}
    for table in order:
        if table in holding:
            conn.execute(sql.SQL("DELETE FROM {}").format(sql.Identifier(table)))
    conn.execute("SELECT setval(format('%I.%I', schemaname, sequencename)::regclass, "
                 "start_value, false) FROM pg_sequences "
                 "WHERE schemaname = 'public' AND last_value IS NOT NULL")


def _emptying_order(conn: psycopg.Connection) -> list[str]:
    """The tables, each after every table that references it."""
    tables = [r[0] for r in conn.execute(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
        "AND NOT tablename = ANY(%s)", (list(KEPT),))]
    referenced_by: dict[str, set[str]] = {t: set() for t in tables}
    for child, parent in conn.execute(
            "SELECT c.conrelid::regclass::text, c.confrelid::regclass::text "
            "FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
            "WHERE c.contype = 'f' AND n.nspname = 'public'"):
        if child != parent and parent in referenced_by:
            referenced_by[parent].add(child)
    order: list[str] = []

    def place(table: str, path: frozenset[str]) -> None:
        if table in order:
            return
        if table in path:
            raise RuntimeError(f"the foreign keys run in a circle through {table}: "
                               "tests/support/emptying.py cannot order the tables")
        for child in sorted(referenced_by[table]):
            place(child, path | {table})
        order.append(table)
    for table in sorted(tables):
        place(table, frozenset())
    return order
