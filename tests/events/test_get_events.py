"""GET /events (contract 12.2): scopes per type, types validation, start=latest, cursors (a
position valid with any types; foreign or pruned: 410), bad input with the envelope, and the
events of ARI batches, reconciliation and distribution."""

from __future__ import annotations

import datetime as dt

import pytest

from connectivity.events.retention import prune_events
from connectivity.mapping.distribution import set_distribution
from tests.ari.conftest import day as ari_day, put, redis_client, work  # noqa: F401 - fixtures
from tests.events.conftest import API, read_events
from tests.reservations.conftest import reservation
from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.support.feed import settle


@pytest.fixture
def push(issue, catalog):
    return {"Authorization": f"Bearer {issue('push', signed=False, rate_limit=100_000).token}"}


def _bearer(issue, preset="none", **options):
    return {"Authorization": f"Bearer {issue(preset, rate_limit=100_000, **options).token}"}


def test_pause_and_resume_are_events_for_the_keys_that_may_see_them(client, db, issue,
                                                                   catalog):
    reader = _bearer(issue, extra_scopes=("content.read",))
    db.run(set_distribution, "acme", "LIS1", False)
    db.run(set_distribution, "acme", "LIS1", False)  # no change of state: no event
    db.run(set_distribution, "acme", "LIS1", True)
    events = read_events(client, db, reader, limit=1)
    assert [(e["type"], e["data"]) for e in events] == [
        ("mapping.paused", {"hotel_code": "ACME-LIS"}),
        ("mapping.resumed", {"hotel_code": "ACME-LIS"})]
    # booking.read alone sees no mapping event.
    assert read_events(client, db, _bearer(issue, extra_scopes=("booking.read",))) == []


def test_a_finished_batch_is_an_event_holding_its_outcome(client, db, push, put, work):
    batch_id = put([{"room_type_code": "ACME-DBL", "date": ari_day(0), "availability": 4},
                    {"room_type_code": "NOPE", "date": ari_day(0), "availability": 4}])
    assert read_events(client, db, push) == []  # queued: nothing finished yet
    work()
    events = read_events(client, db, push)
    assert [e["type"] for e in events] == ["ari_batch.finished"]
    answered = assert_envelope_success(client.get(f"{API}/ari/batches/{batch_id}",
                                                  headers=push))
    assert events[0]["data"] == answered
    assert answered["status"] == "partially_applied"


def test_a_reconciliation_item_is_a_flagged_event(client, db, push, catalog):
    body = reservation("CM-EV", hotel_code="ACME-LIS", sell_amount="999.00")
    assert client.post(f"{API}/reservations", json=body, headers=push).status_code == 201
    events = read_events(client, db, push, "&types=reservation.flagged")
    assert events and {e["type"] for e in events} == {"reservation.flagged"}
    for event in events:
        assert set(event["data"]) == {"partner_reference", "hotel_code", "code", "message"}
        assert (event["data"]["partner_reference"], event["data"]["hotel_code"]) == (
            "CM-EV", "ACME-LIS")


def test_start_latest_then_only_what_follows(client, db, issue, catalog):
    reader = _bearer(issue, extra_scopes=("ari.read",))
    db.run(set_distribution, "acme", "LIS1", False)
    settle(db)
    latest = assert_envelope_success(client.get(f"{API}/events?start=latest", headers=reader))
    assert latest["events"] == [] and latest["has_more"] is False
    assert isinstance(latest["next_cursor"], str)
    db.run(set_distribution, "acme", "LIS1", True)
    settle(db)
    page = assert_envelope_success(client.get(
        f"{API}/events?cursor={latest['next_cursor']}", headers=reader))
    assert [e["type"] for e in page["events"]] == ["mapping.resumed"]
    assert isinstance(page["next_cursor"], str)
    # A cursor is a position: the same one with a filter leaves the other types out.
    filtered = assert_envelope_success(client.get(
        f"{API}/events?cursor={latest['next_cursor']}&types=mapping.paused", headers=reader))
    assert filtered["events"] == []


def test_a_key_with_none_of_the_scopes_is_403(client, issue, catalog):
    response = client.get(f"{API}/events", headers=_bearer(issue, extra_scopes=(
        "booking.quote",)))
    error = assert_envelope_failure(response, 403, "insufficient_scope")
    assert "booking.read" in error["details"]["required"]


@pytest.mark.parametrize("query, field", [
    ("types=booking.made", "types"),
    ("types=", "types"),
    ("types=booking.confirmed,ping", "types"),
    ("types=ari_batch.finished", "types"),  # a type this key may not see
    ("limit=0", "limit"), ("limit=501", "limit"), ("limit=ten", "limit"),
    ("start=oldest", "start"),
    ("start=latest&cursor=abc", "start"),
    ("cursor=" + "x" * 201, "cursor"),
])
def test_bad_input_is_422_naming_the_field(client, issue, catalog, query, field):
    reader = _bearer(issue, extra_scopes=("booking.read",))
    error = assert_envelope_failure(client.get(f"{API}/events?{query}", headers=reader), 422,
                                  "validation_failed")
    assert field in error["details"]["fields"]


def test_a_foreign_or_pruned_cursor_is_410(client, db, issue, catalog):
    reader = _bearer(issue, extra_scopes=("content.read",))
    feed = assert_envelope_success(client.get(f"{API}/availability/changes",
                                              headers=_bearer(issue, "pull")))["next_cursor"]
    for cursor in ("not-a-cursor", feed):  # malformed, and the change feed's own
        assert_envelope_failure(client.get(f"{API}/events?cursor={cursor}", headers=reader),
                              410, "cursor_expired")
    start = assert_envelope_success(client.get(f"{API}/events", headers=reader))["next_cursor"]
    db.run(set_distribution, "acme", "LIS1", False)
    settle(db)
    with db.connection() as conn:  # the event is older than any retention (a constant: Citus)
        conn.execute("UPDATE event_log SET created_at = %s",
                     (dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=31),))
    assert prune_events(db, 30) == 1
    assert_envelope_failure(client.get(f"{API}/events?cursor={start}", headers=reader), 410,
                          "cursor_expired")
    # Without a cursor, from the oldest kept: nothing left, and polling goes on from there.
    fresh = assert_envelope_success(client.get(f"{API}/events", headers=reader))
    assert fresh["events"] == []
    assert_envelope_success(client.get(f"{API}/events?cursor={fresh['next_cursor']}",
                                       headers=reader))
