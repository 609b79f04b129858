"""The staging of an apply and of a dry run (ari_staged_values, migration 0015): rows that live
only within their transaction, whatever the outcome of their items."""

from __future__ import annotations

import psycopg
import pytest

from connectivity.ari.apply import stage_batches, write_staged_values

from tests.ari.conftest import day

ITEMS = [
    {"room_type_code": "ACME-DBL", "date": day(0), "availability": 5},
    {"room_type_code": "ACME-NOPE", "date": day(0), "availability": 1},
    {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(1),
     "rate": "99.00", "currency": "EUR"},
]
RESTRICTION = {"room_type_code": "ACME-DBL", "from_date": day(0), "to_date": day(13),
               "days_of_week": [5, 6], "closed": True}


def staged_rows(db) -> int:
    with db.connection() as conn:
        return conn.execute("SELECT count(*) AS n FROM ari_staged_values").fetchone()["n"]


def test_nothing_is_left_staged_after_an_apply_or_a_dry_run(client, push, put, work, outcome,
                                                            db, room_days):
    batch = put(ITEMS)
    restrictions = put([RESTRICTION], path="/ari/restrictions")
    assert work() == 1
    assert outcome(batch)["rejected"][0]["code"] == "unknown_room_type"
    closed = sorted(d for d, row in room_days("LIS1", "DBL").items() if row["closed"])
    assert len(closed) == 4 and outcome(restrictions)["status"] == "applied"
    dry = client.put(f"/api/connectivity/v1/ari?dry_run=true", headers=push,
                     json={"hotel_code": "ACME-LIS", "items": ITEMS})
    assert dry.status_code == 200, dry.get_json()
    assert dry.get_json()["data"]["rejected_count"] == 1
    assert staged_rows(db) == 0


def test_a_staging_writes_only_its_own_rows(put, db, room_days):
    """Two stagings in one transaction: writing the second leaves the first's values unwritten
    (each statement names its stage)."""
    first = put([{"room_type_code": "ACME-DBL", "date": day(2), "availability": 9}])
    second = put([{"room_type_code": "ACME-DBL", "date": day(3), "availability": 4}])

    def stage_both(conn):
        rows = conn.execute("SELECT id, property_id, mapping_id FROM ari_batches "
                            "WHERE id = ANY(%s) ORDER BY seq", ([first, second],)).fetchall()
        one, two = (stage_batches(conn, [row]) for row in rows)
        write_staged_values(conn, two)
        left = conn.execute("SELECT count(*) AS n FROM ari_staged_values WHERE stage = %s",
                            (one.stage,)).fetchone()["n"]
        return left

    assert db.run(stage_both) == 1
    rooms = room_days("LIS1", "DBL")
    assert rooms[day(3)]["available"] == 4 and day(2) not in rooms


def test_a_value_without_its_date_cannot_be_staged(db, put):
    put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 5}])
    with pytest.raises(psycopg.errors.CheckViolation):
        with db.connection() as conn:
            conn.execute(
                "INSERT INTO ari_staged_values (stage, property_id, batch_id, seq, room_type_id, "
                "available) SELECT gen_random_uuid(), property_id, id, ari_first_order(seq), 1, 5 "
                "FROM ari_batches")
