"""GET /bookings/{reference} and POST /bookings/{reference}/cancel: scoped to the partner and
environment, the penalty from the policy copied at booking time."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from psycopg.types.json import Jsonb

from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

from tests.bookings.conftest import API, available, booking_body


def book(client, headers, body) -> dict:
    return assert_envelope_success(client.post(f"{API}/bookings", json=body, headers=headers),
                                   201)["booking"]


def cancel(client, headers, reference="ACME-BKG-1", **body):
    return client.post(f"{API}/bookings/{reference}/cancel", json=body, headers=headers)


@pytest.fixture
def tomorrow(db, catalog):
    """Two priced nights from tomorrow at LIS1 (Lisbon time): inside BAR's 48-hour tier."""
    first = dt.datetime.now(ZoneInfo("Europe/Lisbon")).date() + dt.timedelta(days=1)
    nights = stay_dates(first, 2)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    set_plan_days(db, "LIS1", "DBL", "NRF", nights, rate="90.00")
    set_plan_days(db, "LIS1", "DBL", "BAR", nights[1:], rate="120.00")
    return first


def stay_of(first: dt.date, **fields) -> dict:
    return {"check_in": first.isoformat(),
            "check_out": (first + dt.timedelta(days=2)).isoformat(), **fields}


def test_another_partners_booking_is_absent(client, pull, globex, lisbon):
    book(client, pull, booking_body())
    absent = assert_envelope_failure(client.get(f"{API}/bookings/NEVER-MADE", headers=globex),
                                     404, "not_found")
    theirs = assert_envelope_failure(client.get(f"{API}/bookings/ACME-BKG-1", headers=globex),
                                     404, "not_found")
    assert theirs["message"].replace("ACME-BKG-1", "X") == absent["message"].replace(
        "NEVER-MADE", "X")
    assert_envelope_failure(cancel(client, globex), 404, "not_found")
    assert status_of(client, pull) == "confirmed"


def status_of(client, headers) -> str:
    return assert_envelope_success(client.get(f"{API}/bookings/ACME-BKG-1",
                                              headers=headers))["booking"]["status"]


def test_same_reference_for_two_partners_is_two_bookings(client, pull, globex, lisbon, db):
    mine = book(client, pull, booking_body("SHARED-REF"))
    theirs = book(client, globex, {**booking_body("SHARED-REF"), "hotel_code": "GLX-LIS",
                                   "room_type_code": "GLX-DBL", "rate_plan_code": "GLX-BAR"})
    assert mine["confirmation_number"] != theirs["confirmation_number"]
    assert theirs["hotel_code"] == "GLX-LIS"
    assert available(db) == [3, 3, 5, 5]  # both partners sell the same rooms


def test_another_environment_does_not_see_it(client, pull, issue, lisbon, db):
    book(client, pull, booking_body())
    db.run(lambda c: c.execute(
        "INSERT INTO properties (code, name, environment, country, timezone, currency, "
        "max_child_age) VALUES ('PRD1', 'Prod', 'production', 'PT', 'Europe/Lisbon', 'EUR', 11)"))
    db.run(lambda c: c.execute(
        "INSERT INTO partner_properties (partner_id, property_id, environment, hotel_code, "
        "distribution_active) SELECT pa.id, pr.id, 'production', 'ACME-PRD', true "
        "FROM partners pa, properties pr WHERE pa.code = 'acme' AND pr.code = 'PRD1'"))
    live = {"Authorization": f"Bearer {issue('pull', environment='production').token}"}
    assert_envelope_failure(client.get(f"{API}/bookings/ACME-BKG-1", headers=live), 404,
                            "not_found")


def test_paused_property_bookings_stay_readable_and_cancellable(client, pull, lisbon, db, app):
    book(client, pull, booking_body())
    with app.app_context():
        app.test_cli_runner().invoke(args=["distribution", "pause", "--partner", "acme",
                                           "--property", "LIS1"])
    assert status_of(client, pull) == "confirmed"
    assert assert_envelope_success(cancel(client, pull))["booking"]["status"] == "cancelled"
    assert available(db) == [5, 5, 5, 5]


def test_penalty_inside_the_tier_is_the_first_night(client, pull, tomorrow, db):
    booking = book(client, pull, booking_body(**stay_of(tomorrow), total=220))
    assert [n["amount"] for n in booking["nights"]] == [100, 120]
    # 48-hour tier of BAR: one night, the first one
    error = assert_envelope_failure(cancel(client, pull, expected_penalty_amount="99.99"), 409,
                                    "penalty_exceeds_expectation")
    assert error["details"] == {"penalty_amount": 100, "currency": "EUR"}
    assert status_of(client, pull) == "confirmed"
    data = assert_envelope_success(cancel(client, pull, expected_penalty_amount=100,
                                          currency="EUR"))
    assert (data["penalty_amount"], data["currency"]) == (100, "EUR")
    assert data["booking"]["penalty_amount"] == 100


def test_policy_changed_after_booking_does_not_change_the_penalty(client, pull, tomorrow, db):
    book(client, pull, booking_body(**stay_of(tomorrow), total=220))
    db.run(lambda c: c.execute("UPDATE rate_plans SET cancellation_policy = %s WHERE code = "
                               "'BAR'", (Jsonb({"non_refundable": True, "tiers": []}),)))
    data = assert_envelope_success(cancel(client, pull))
    assert data["penalty_amount"] == 100  # the copied 48-hour tier, not the new 220
    assert data["booking"]["cancellation_policy"]["non_refundable"] is False


def test_non_refundable_costs_the_total(client, pull, tomorrow):
    book(client, pull, booking_body(**stay_of(tomorrow), rate_plan_code="ACME-NRF", total=180))
    assert assert_envelope_success(cancel(client, pull))["penalty_amount"] == 180


def test_far_ahead_is_free_and_a_replay_keeps_the_result(client, pull, lisbon, db):
    book(client, pull, booking_body())
    first = assert_envelope_success(cancel(client, pull, expected_penalty_amount=0))
    assert first["penalty_amount"] == 0 and not first["idempotent_replay"]
    replay = assert_envelope_success(cancel(client, pull, expected_penalty_amount=0))
    assert replay == {**first, "idempotent_replay": True}
    assert available(db) == [5, 5, 5, 5]


def test_cancel_checks(client, pull, lisbon, db):
    book(client, pull, booking_body())
    error = assert_envelope_failure(cancel(client, pull, currency="USD"), 422, "validation_failed")
    assert "currency" in error["details"]["fields"]
    error = assert_envelope_failure(cancel(client, pull, expected_penalty_amount=-1), 422,
                                    "validation_failed")
    assert "expected_penalty_amount" in error["details"]["fields"]
    assert_envelope_failure(cancel(client, pull, reason="r" * 501), 422, "validation_failed")
    assert_envelope_failure(cancel(client, pull, "NOT-MINE"), 404, "not_found")
    assert status_of(client, pull) == "confirmed"
    assert available(db) == [4, 4, 5, 5]


def test_cancel_without_a_body(client, pull, lisbon, db):
    book(client, pull, booking_body())
    response = client.post(f"{API}/bookings/ACME-BKG-1/cancel", headers=pull)
    assert assert_envelope_success(response)["booking"]["status"] == "cancelled"
    assert available(db) == [5, 5, 5, 5]
