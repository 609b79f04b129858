"""`flask --app app citus distribute`: every table placed as connectivity/sharding.py plans,
a second run changes nothing, and plain PostgreSQL is left alone."""

from __future__ import annotations

import psycopg
import pytest

from connectivity import sharding
from tests.oncitus import TEST_SHARD_COUNT

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
