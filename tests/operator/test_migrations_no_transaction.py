"""A migration that runs outside a transaction (`-- migration: no-transaction`), for
`CREATE INDEX CONCURRENTLY`: applied statement by statement, recorded once, and never recorded
while a failed concurrent build has left an INVALID index behind."""

from __future__ import annotations

import psycopg
import pytest

from connectivity.operator.migrations import MigrationError, statements, upgrade

TABLE = """-- 0001_items: a table with duplicate values in `v`.
CREATE TABLE items (id int PRIMARY KEY, v int NOT NULL);
INSERT INTO items SELECT g, g % 100 FROM generate_series(1, 5000) g;
"""
UNIQUE_INDEX = """-- 0002_unique_v: a unique index on v, built without blocking writers.
-- migration: no-transaction
DROP INDEX CONCURRENTLY IF EXISTS items_v;  -- what a failed run left
CREATE UNIQUE INDEX CONCURRENTLY items_v ON items (v);
"""


def _ledger(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]


def _index_valid(url: str, name: str) -> bool | None:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT i.indisvalid FROM pg_index i JOIN pg_class c "
                           "ON c.oid = i.indexrelid WHERE c.relname = %s", (name,)).fetchone()
        return None if row is None else row[0]


def test_a_concurrent_index_build_is_applied_and_recorded_once(empty_database, tmp_path):
    (tmp_path / "0001_items.sql").write_text(TABLE)
    (tmp_path / "0002_unique_v.sql").write_text(UNIQUE_INDEX.replace("UNIQUE ", ""))
    assert upgrade(empty_database, tmp_path) == ["0001_items", "0002_unique_v"]
    assert _index_valid(empty_database, "items_v") is True
    assert upgrade(empty_database, tmp_path) == []
    assert _ledger(empty_database) == ["0001_items", "0002_unique_v"]


def test_a_failed_build_is_not_recorded_and_a_second_run_recovers(empty_database, tmp_path):
    (tmp_path / "0001_items.sql").write_text(TABLE)
    (tmp_path / "0002_unique_v.sql").write_text(UNIQUE_INDEX)
    with pytest.raises(psycopg.errors.UniqueViolation):
        upgrade(empty_database, tmp_path)
    assert _ledger(empty_database) == ["0001_items"]
    assert _index_valid(empty_database, "items_v") is False  # what the failed build left
    with psycopg.connect(empty_database, autocommit=True) as conn:
        conn.execute("DELETE FROM items WHERE id > 100")
    assert upgrade(empty_database, tmp_path) == ["0002_unique_v"]
    assert _index_valid(empty_database, "items_v") is True
    assert _ledger(empty_database) == ["0001_items", "0002_unique_v"]


def test_an_invalid_index_left_behind_is_never_recorded_as_done(empty_database, tmp_path):
    """IF NOT EXISTS skips an INVALID index of that name: the runner must not call it done."""
    (tmp_path / "0001_items.sql").write_text(TABLE)
    (tmp_path / "0002_unique_v.sql").write_text(UNIQUE_INDEX)
    with pytest.raises(psycopg.errors.UniqueViolation):
        upgrade(empty_database, tmp_path)
    (tmp_path / "0002_unique_v.sql").write_text(
        "-- migration: no-transaction\n"
        "CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS items_v ON items (v);\n")
    with pytest.raises(MigrationError, match="items_v.*INVALID"):
        upgrade(empty_database, tmp_path)
    assert _ledger(empty_database) == ["0001_items"]


def test_a_transactional_migration_still_applies_whole_or_not_at_all(empty_database, tmp_path):
    (tmp_path / "0001_items.sql").write_text(TABLE + "SELECT 1/0;\n")
    with pytest.raises(psycopg.errors.DivisionByZero):
        upgrade(empty_database, tmp_path)
    with psycopg.connect(empty_database) as conn:
        assert conn.execute("SELECT to_regclass('items')").fetchone() == (None,)
    assert _ledger(empty_database) == []


def test_statements_split_at_a_semicolon_ending_a_line():
    assert statements(UNIQUE_INDEX) == [
        "-- 0002_unique_v: a unique index on v, built without blocking writers.\n"
        "-- migration: no-transaction\nDROP INDEX CONCURRENTLY IF EXISTS items_v",
        "CREATE UNIQUE INDEX CONCURRENTLY items_v ON items (v)"]
    with pytest.raises(MigrationError):
        statements("-- migration: no-transaction\n-- nothing here\n")
