"""PUT /ari?dry_run=true and PUT /ari/restrictions?dry_run=true (contract 11.2): the rejected
rows and field changes of the real push, synchronously, with nothing stored."""

from __future__ import annotations

import datetime as dt
import random
from decimal import Decimal

import pytest

from tests.support.envelope import assert_envelope_failure, assert_envelope_success

from tests.ari.conftest import API, START, day

# Partner code -> the demo catalogue's own (acme's mapping of LIS1).
INTERNAL = {"ACME-DBL": "DBL", "ACME-SGL": "SGL", "ACME-BAR": "BAR", "ACME-NRF": "NRF"}
FIELD_OF_COLUMN = {"available": "availability"}
ROOM_COLUMNS = ("available", "closed", "min_stay", "max_stay", "closed_to_arrival",
                "closed_to_departure")
PLAN_COLUMNS = ("rate", "single_rate", "extra_adult_rate", "extra_child_rate", "closed",
                "min_stay", "max_stay", "closed_to_arrival", "closed_to_departure")


@pytest.fixture
def dry(client, push):
    def _dry(items, path="/ari", hotel_code="ACME-LIS", flag="true") -> dict:
        response = client.put(f"{API}{path}?dry_run={flag}", headers=push,
                              json={"hotel_code": hotel_code, "items": items})
        return assert_envelope_success(response, 200)
    return _dry


def stored(db) -> dict:
    """Every stored value of LIS1: {(room type, rate plan or None, date, field): value}."""
    values = {}
    with db.connection() as conn:
        for row in conn.execute(
                "SELECT rt.code AS rt, d.* FROM room_type_days d "
                "JOIN room_types rt ON rt.id = d.room_type_id"):
            for column in ROOM_COLUMNS:
                if row[column] is not None:
                    values[(row["rt"], None, row["date"].isoformat(),
                            FIELD_OF_COLUMN.get(column, column))] = row[column]
        for row in conn.execute(
                "SELECT rt.code AS rt, rp.code AS rp, d.* FROM rate_plan_days d "
                "JOIN room_types rt ON rt.id = d.room_type_id "
                "JOIN rate_plans rp ON rp.id = d.rate_plan_id"):
            for column in PLAN_COLUMNS:
                if row[column] is not None:
                    values[(row["rt"], row["rp"], row["date"].isoformat(), column)] = row[column]
    return values


def exact(value):
    """A value as JSON carried it, comparable with the stored one (amounts as Decimal)."""
    if isinstance(value, float):
        return Decimal(str(value))
    return value


def counts(db) -> tuple:
    with db.connection() as conn:
        return conn.execute("SELECT (SELECT count(*) FROM ari_batches) AS batches, "
                            "(SELECT count(*) FROM room_type_days) AS rooms, "
                            "(SELECT count(*) FROM rate_plan_days) AS plans").fetchone()


def test_a_dry_run_reports_rejections_and_changes_and_stores_nothing(
        dry, put, work, db, batch_queue):
    put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 5},
         {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
          "rate": 110, "closed": False}])
    assert work() == 1
    before, before_counts = stored(db), counts(db)

    data = dry([
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
         "rate": "120.50", "closed": False, "availability": 5},
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-XYZ", "date": day(0),
         "rate": 1},
        {"room_type_code": "ACME-DBL", "date": day(1), "availability": 2, "min_stay": 3},
    ])
    assert data == {
        "dry_run": True, "item_count": 3, "applied_count": 2, "rejected_count": 1,
        "rejected": [{"index": 1, "code": "unknown_rate_plan",
                      "message": "rate plan 'ACME-XYZ' is not mapped for this hotel"}],
        "changes": [
            {"index": 0, "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
             "date": day(0), "field": "rate", "from": 110, "to": 120.5},
            {"index": 2, "room_type_code": "ACME-DBL", "rate_plan_code": None,
             "date": day(1), "field": "availability", "from": None, "to": 2},
            {"index": 2, "room_type_code": "ACME-DBL", "rate_plan_code": None,
             "date": day(1), "field": "min_stay", "from": None, "to": 3}]}
    assert stored(db) == before and counts(db) == before_counts
    assert batch_queue.queue.count == 0


def test_a_restrictions_item_expands_to_one_change_per_date_and_field(dry):
    data = dry([{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-NRF",
                 "from_date": day(0), "to_date": day(6), "days_of_week": [START.weekday()],
                 "closed": True, "max_stay": 7}], path="/ari/restrictions")
    assert [(c["date"], c["field"], c["from"], c["to"]) for c in data["changes"]] == [
        (day(0), "closed", None, True), (day(0), "max_stay", None, 7)]
    assert {c["rate_plan_code"] for c in data["changes"]} == {"ACME-NRF"}


def test_dry_run_false_is_the_real_push_and_anything_else_is_422(client, push, catalog):
    body = {"hotel_code": "ACME-LIS",
            "items": [{"room_type_code": "ACME-DBL", "date": day(0), "availability": 1}]}
    assert_envelope_success(client.put(f"{API}/ari?dry_run=false", json=body, headers=push), 202)
    for flag in ("maybe", "1", "TRUE", ""):
        error = assert_envelope_failure(
            client.put(f"{API}/ari?dry_run={flag}", json=body, headers=push),
            422, "validation_failed")
        assert "dry_run" in error["details"]["fields"], error


def test_field_rules_and_unmapped_hotels_answer_as_for_the_real_push(client, push, db, catalog):
    invalid = {"hotel_code": "ACME-LIS",
               "items": [{"room_type_code": "ACME-DBL", "date": day(0), "availability": -1}]}
    error = assert_envelope_failure(client.put(f"{API}/ari?dry_run=true", json=invalid,
                                               headers=push), 422, "validation_failed")
    assert "items.0.availability" in error["details"]["fields"]
    unmapped = {**invalid, "hotel_code": "NOPE",
                "items": [{"room_type_code": "ACME-DBL", "date": day(0), "availability": 1}]}
    assert_envelope_failure(client.put(f"{API}/ari/restrictions?dry_run=true", headers=push,
                                       json={"hotel_code": "NOPE", "items": [
                                           {"room_type_code": "X", "from_date": day(0),
                                            "to_date": day(0), "closed": True}]}),
                            404, "not_found")
    assert_envelope_failure(client.put(f"{API}/ari?dry_run=true", json=unmapped, headers=push),
                            404, "not_found")
    assert counts(db)["batches"] == 0


# Random batches both ways ----------------------------------------------------------------

ROOMS = ["ACME-DBL", "ACME-SGL", "ACME-UNKNOWN"]
PLANS = [None, "ACME-BAR", "ACME-NRF", "ACME-UNKNOWN"]


def random_dates(rng: random.Random) -> tuple[str, str]:
    roll = rng.random()
    if roll < 0.04:
        start = dt.date.today() - dt.timedelta(days=rng.randint(5, 40))   # date_in_past
        return start.isoformat(), (start + dt.timedelta(days=rng.randint(0, 2))).isoformat()
    if roll < 0.07:
        start = dt.date.today() + dt.timedelta(days=800)                  # date_too_far
        return start.isoformat(), start.isoformat()
    first = rng.randint(0, 9)
    return day(first), day(first + rng.randint(0, 4))


def random_restrictions(rng: random.Random) -> dict:
    fields = {}
    for name in rng.sample(["closed", "min_stay", "max_stay", "closed_to_arrival",
                            "closed_to_departure"], rng.randint(1, 3)):
        fields[name] = (rng.random() < 0.5 if name.startswith("closed")
                        else rng.randint(1, 6))
    return fields


def random_ari_item(rng: random.Random) -> dict:
    item = {"room_type_code": rng.choice(ROOMS), "date": random_dates(rng)[0]}
    plan = rng.choice(PLANS)
    if plan:
        item["rate_plan_code"] = plan
    if rng.random() < 0.5:
        item["availability"] = rng.randint(0, 9)
    if rng.random() < 0.6 or "availability" not in item:
        for name in rng.sample(["rate", "single_rate", "extra_adult_rate",
                                "extra_child_rate"], rng.randint(1, 2)):
            item[name] = str(Decimal(rng.randint(5000, 20000)) / 100)
        if rng.random() < 0.1:
            item["currency"] = rng.choice(["EUR", "USD"])
    if rng.random() < 0.4:
        item.update(random_restrictions(rng))
    return item


def random_restriction_item(rng: random.Random) -> dict:
    first, last = random_dates(rng)
    item = {"room_type_code": rng.choice(ROOMS), "from_date": first, "to_date": last,
            **random_restrictions(rng)}
    plan = rng.choice(PLANS)
    if plan:
        item["rate_plan_code"] = plan
    if rng.random() < 0.3:
        item["days_of_week"] = sorted(rng.sample(range(7), rng.randint(1, 4)))
    return item


def test_random_batches_dry_run_agree_with_the_real_push(dry, put, work, outcome, db):
    rng = random.Random(14)
    seen_codes, change_count = set(), 0
    for round_ in range(12):
        kind = rng.choice(["/ari", "/ari/restrictions"])
        make = random_ari_item if kind == "/ari" else random_restriction_item
        items = [make(rng) for _ in range(rng.randint(1, 25))]
        before = stored(db)

        predicted = dry(items, path=kind)
        batch_id = put(items, path=kind)
        assert work() == 1
        real = outcome(batch_id)
        assert predicted["rejected"] == real["rejected"], (round_, items)
        seen_codes |= {row["code"] for row in real["rejected"]}
        change_count += len(predicted["changes"])
        assert (predicted["applied_count"], predicted["rejected_count"]) == (
            real["applied_count"], real["rejected_count"])

        expected = dict(before)
        for change in predicted["changes"]:
            key = (INTERNAL[change["room_type_code"]],
                   INTERNAL.get(change["rate_plan_code"]), change["date"], change["field"])
            assert exact(change["from"]) == before.get(key), (round_, change)
            expected[key] = exact(change["to"])
        assert stored(db) == expected, (round_, items)
    # The rounds did write, and met most rejection rules.
    assert change_count > 100 and len(stored(db)) > 50
    assert len(seen_codes) >= 5, seen_codes
