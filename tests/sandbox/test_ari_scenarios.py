"""The ARI push's sandbox scenarios (contract 11.4): they store and apply for real, one with item
0 rejected as `sandbox_scenario`, one no sooner than 10 s after acceptance. Applied by the
Procfile's worker (its scheduler runs the delayed job)."""

from __future__ import annotations

import datetime as dt
import time

import psycopg
import pytest

from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.support.live_service import worker  # noqa: F401 - fixture

from tests.sandbox.conftest import API, HEADER, scenario

DAY = (dt.date.today() + dt.timedelta(days=5)).isoformat()
ITEMS = {
    "/ari": [{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": DAY,
              "rate": 111},
             {"room_type_code": "ACME-DBL", "date": DAY, "availability": 6}],
    "/ari/restrictions": [{"room_type_code": "ACME-DBL", "from_date": DAY, "to_date": DAY,
                           "min_stay": 3},
                          {"room_type_code": "ACME-DBL", "from_date": DAY, "to_date": DAY,
                           "closed_to_arrival": True}],
}


@pytest.fixture
def push(issue, catalog):
    return {"Authorization": f"Bearer {issue('push', signed=False).token}"}


def accepted(client, headers, path, items):
    data = assert_envelope_success(client.put(f"{API}{path}", headers=headers, json={
        "hotel_code": "ACME-LIS", "items": items}), 202)
    assert data["status"] == "queued"
    return data["batch_id"]


def outcome(client, headers, batch_id):
    return assert_envelope_success(client.get(f"{API}/ari/batches/{batch_id}", headers=headers))


def final(client, headers, batch_id, timeout=90):
    deadline = time.monotonic() + timeout
    while True:
        batch = outcome(client, headers, batch_id)
        if batch["status"] not in ("queued", "processing"):
            return batch
        assert time.monotonic() < deadline, batch
        time.sleep(0.2)


def dbl_day(services):
    with psycopg.connect(services.database_url) as conn:
        return conn.execute(
            "SELECT d.available, d.min_stay, d.closed_to_arrival FROM room_type_days d "
            "JOIN room_types rt ON rt.id = d.room_type_id WHERE rt.code = 'DBL' "
            "AND d.date = %s", (DAY,)).fetchone()


@pytest.mark.parametrize("path", ["/ari", "/ari/restrictions"])
def test_partially_applied_rejects_item_0_and_applies_the_rest(client, push, worker, services,
                                                               path):
    batch_id = accepted(client, scenario(push, "partially_applied"), path, ITEMS[path])
    batch = final(client, push, batch_id)
    assert (batch["status"], batch["applied_count"], batch["rejected_count"]) == (
        "partially_applied", 1, 1)
    [rejected] = batch["rejected"]
    assert (rejected["index"], rejected["code"]) == (0, "sandbox_scenario")
    assert HEADER in rejected["message"]
    # item 1 applied for real; item 0's value was not written
    expected = (6, None, None) if path == "/ari" else (None, None, True)
    assert dbl_day(services) == expected


def test_partially_applied_needs_two_items(client, push, services):
    error = assert_envelope_failure(client.put(
        f"{API}/ari", headers=scenario(push, "partially_applied"),
        json={"hotel_code": "ACME-LIS", "items": ITEMS["/ari"][:1]}), 422, "validation_failed")
    assert list(error["details"]["fields"]) == [HEADER]
    with psycopg.connect(services.database_url) as conn:
        assert conn.execute("SELECT count(*) FROM ari_batches").fetchone()[0] == 0


def test_delayed_apply_stays_queued_for_10_seconds_then_applies(client, push, worker, services):
    batch_id = accepted(client, scenario(push, "delayed_apply"), "/ari", ITEMS["/ari"])
    received = dt.datetime.fromisoformat(outcome(client, push, batch_id)["received_at"])
    # Read while the 10 s run: queued every time (the worker is up and idle meanwhile). Only
    # reads answered well inside the 10 s count: a loaded machine may answer one late.
    answered_early = 0
    while dt.datetime.now(dt.timezone.utc) < received + dt.timedelta(seconds=8):
        status = outcome(client, push, batch_id)["status"]
        if dt.datetime.now(dt.timezone.utc) < received + dt.timedelta(seconds=9):
            assert status == "queued"
            answered_early += 1
        time.sleep(0.5)
    assert answered_early > 0
    batch = final(client, push, batch_id)
    assert batch["status"] == "applied"
    applied = dt.datetime.fromisoformat(batch["applied_at"])
    assert applied - received >= dt.timedelta(seconds=10)
    with psycopg.connect(services.database_url) as conn:
        apply_after = conn.execute("SELECT apply_after - received_at FROM ari_batches "
                                   "WHERE id = %s", (batch_id,)).fetchone()[0]
    assert apply_after == dt.timedelta(seconds=10)
    assert dbl_day(services)[0] == 6
    # A batch without the scenario is not held back behind it.
    plain = accepted(client, push, "/ari", ITEMS["/ari"])
    assert final(client, push, plain)["status"] == "applied"


def test_the_database_keeps_scenarios_to_the_two_that_store(client, push, services):
    batch_id = accepted(client, push, "/ari", ITEMS["/ari"])
    for change in ("sandbox_scenario = 'sold_out'",
                   "apply_after = now()",                         # a delay without its scenario
                   "sandbox_scenario = 'delayed_apply'"):         # the scenario without its time
        with psycopg.connect(services.database_url) as conn:
            with pytest.raises(psycopg.errors.CheckViolation):
                conn.execute(f"UPDATE ari_batches SET {change} WHERE id = %s", (batch_id,))
