"""`flask --app app citus distribute`: every table placed as connectivity/store/sharding.py plans,
a second run changes nothing, and plain PostgreSQL is left alone."""

from __future__ import annotations

import psycopg
import pytest

from connectivity.store import sharding
from tests.bookings.conftest import START as BOOKING_START
from tests.support.oncitus import TEST_SHARD_COUNT
from connectivity.web.services import services_of

PLACEMENTS = """
SELECT c.relname AS table_name, p.partmethod, p.repmodel, p.colocationid,
       CASE WHEN p.partmethod = 'h' THEN column_to_column_name(p.logicalrelid, p.partkey) END
           AS distribution_column,
       (SELECT count(*) FROM pg_dist_shard s WHERE s.logicalrelid = p.logicalrelid) AS shards
  FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
"""


def placements(url: str) -> dict[str, tuple]:
    with psycopg.connect(url) as conn:
        return {r[0]: r[1:] for r in conn.execute(PLACEMENTS)}


def test_on_plain_postgresql_it_says_so_and_changes_nothing(app, services):
    if services.citus is not None:
        pytest.skip("this run is on Citus; the plain PostgreSQL case runs in the plain passes")
    result = app.test_cli_runner().invoke(args=["citus", "distribute"])
    assert result.exit_code == 0, result.output
    assert "plain PostgreSQL" in result.output and "nothing changed" in result.output
    with psycopg.connect(services.database_url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_extension WHERE extname = 'citus'"
                            ).fetchone()[0] == 0


def test_every_table_is_placed_as_planned(citus):
    placed = placements(citus.url)
    for table in sharding.REFERENCE:
        partmethod, repmodel, *_ = placed[table]
        assert (partmethod, repmodel) == ("n", "t"), f"{table} is not a reference table"
    groups = {}
    for table in sharding.DISTRIBUTED_BY_PROPERTY + sharding.DISTRIBUTED_BY_PARTNER:
        partmethod, _, colocation, column, shards = placed[table]
        assert (partmethod, column, shards) == (
            "h", sharding.distribution_column(table), TEST_SHARD_COUNT), table
        groups.setdefault(column, set()).add(colocation)
    # One colocation group per distribution column, and the two apart.
    assert len(groups["property_id"]) == len(groups["partner_id"]) == 1
    assert groups["property_id"] != groups["partner_id"]
    assert all(t not in placed for t in sharding.COORDINATOR_LOCAL)


def test_a_second_run_changes_nothing(app, citus):
    before = placements(citus.url)
    result = app.test_cli_runner().invoke(args=["citus", "distribute", "--shard-count", "8"])
    assert result.exit_code == 0, result.output
    assert "nothing to do: already distributed" in result.output
    assert " placed\n" not in result.output
    assert placements(citus.url) == before


def test_distributing_filled_tables_copies_their_rows_and_logs_no_change(citus, settings):
    """A database loaded before it is distributed: its rows move into the shards, and the day
    tables' change-log triggers stay silent while they are copied (copying is no change)."""
    import dataclasses
    import uuid
    from pathlib import Path

    from psycopg.rows import dict_row

    from app import create_app
    from connectivity.operator.catalog import load_catalog, parse_catalog
    from connectivity.operator.citus import distribute
    from connectivity.operator.migrations import upgrade
    from tests.support.ari_days import set_room_days, stay_dates

    database = f"filled_{uuid.uuid4().hex[:8]}"
    citus.cluster.prepare_database(database)
    url = citus.cluster.url(database)
    try:
        upgrade(url)
        application = create_app(dataclasses.replace(settings, database_url=url))
        db = services_of(application).db
        demo = Path(__file__).resolve().parents[3] / "docs" / "demo-catalog.json"
        db.run(load_catalog, parse_catalog(demo.read_text()))
        set_room_days(db, "LIS1", "DBL", stay_dates(BOOKING_START, 30), available=5)
        set_room_days(db, "OPO1", "TWN", stay_dates(BOOKING_START, 30), available=3)
        for name in ("db", "guards", "reads"):
            getattr(services_of(application), name).close()
        count = "SELECT (SELECT count(*) FROM room_type_days), (SELECT count(*) FROM change_log)"
        with psycopg.connect(url) as conn:
            before = conn.execute(count).fetchone()
        with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
            results = distribute(conn, TEST_SHARD_COUNT)
        assert not [p for p in results if p.failed], [p.line() for p in results]
        assert "room_type_days" in placements(url)
        with psycopg.connect(url) as conn:
            assert conn.execute(count).fetchone() == before
            assert before[0] == 60
    finally:
        citus.cluster.drop_database(database)


def test_a_schema_citus_refuses_anywhere_is_left_whole(citus):
    """One table Citus cannot distribute (a unique key without property_id): every refusal is
    reported, and no table is placed, so the schema keeps working as a plain one."""
    import uuid

    from psycopg.rows import dict_row

    from connectivity.operator.citus import distribute
    from connectivity.operator.migrations import upgrade

    database = f"refused_{uuid.uuid4().hex[:8]}"
    citus.cluster.prepare_database(database)
    url = citus.cluster.url(database)
    try:
        upgrade(url)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("ALTER TABLE bookings ADD CONSTRAINT globally_unique_confirmation "
                         "UNIQUE (confirmation_number)")
        with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
            results = {p.table: p for p in distribute(conn, TEST_SHARD_COUNT)}
        assert results["bookings"].failed and "constraint" in results["bookings"].detail
        assert results["room_type_days"].outcome == "undone"
        assert results["partners"].outcome == "undone"
        assert placements(url) == {}
    finally:
        citus.cluster.drop_database(database)
