"""POST /reservations/{reference}/cancel: exact release, the service's penalty beside the
partner's claim, idempotent redelivery, and the orphan cancel followed by its reservation."""

from __future__ import annotations

import datetime as dt
import threading

import pytest

from tests.support.envelope import assert_envelope_success
from tests.support.ari_days import set_room_days, stay_dates

from tests.reservations.conftest import API, START, available, day, items, post, reservation


def cancel(client, push, body=None, reference="CM-1", status=200):
    return assert_envelope_success(
        post(client, f"/reservations/{reference}/cancel", body or {}, push), status)


def test_cancel_restores_what_was_taken(client, push, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]
    data = cancel(client, push)
    assert data["reservation"]["status"] == "cancelled"
    assert data["orphan"] is False and data["idempotent_replay"] is False
    assert available(db, "DBL") == [5] * 6


def test_cancel_releases_only_what_was_taken_never_the_shortfall(client, push, db, catalog):
    set_room_days(db, "LIS1", "DBL", stay_dates(START, 2), available=1)
    body = reservation(rooms=[{"room_type_code": "ACME-DBL", "quantity": 3, "adults": 2}])
    assert_envelope_success(post(client, "/reservations", body, push), 201)
    assert available(db, "DBL", nights=2) == [0, 0]
    set_room_days(db, "LIS1", "DBL", [day(1)], available=4)  # the hotel adds rooms meanwhile
    cancel(client, push)
    assert available(db, "DBL", nights=2) == [1, 5]


def test_redelivered_cancel_is_idempotent(client, push, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    first = cancel(client, push, {"reason": "guest asked"})
    post(client, "/reservations", reservation("CM-2"), push)  # someone else takes a room
    again = cancel(client, push, {"reason": "guest asked"})
    assert again["idempotent_replay"] is True and again["request_differs"] is False
    assert again["acknowledgement"] == first["acknowledgement"]
    assert again["penalty"] == first["penalty"]
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]


def test_concurrent_cancels_release_once(app, push, lisbon, db):
    app.test_client().post(API + "/reservations", json=reservation(), headers=push)
    threads, results = 4, []
    barrier = threading.Barrier(threads)

    def deliver():
        client = app.test_client()
        barrier.wait()
        response = client.post(API + "/reservations/CM-1/cancel", json={}, headers=push)
        results.append(response.get_json()["data"]["idempotent_replay"])

    workers = [threading.Thread(target=deliver) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert sorted(results) == [False] + [True] * (threads - 1)
    assert available(db, "DBL") == [5] * 6


@pytest.mark.parametrize("fields, cancelled_at, penalty", [
    ({"is_non_refundable": True}, None, 170),
    ({"cancellation_deadline": (START - dt.timedelta(days=30)).isoformat()},
     None, 170),                                          # deadline passed before today
    ({"cancellation_deadline": day(-1).isoformat()}, day(-1), 0),   # on the deadline day
    ({"cancellation_deadline": day(-1).isoformat()}, day(0), 170),  # the day after
    ({}, day(1), 0),                                      # no deadline, refundable
])
def test_the_service_computes_its_own_penalty(client, push, lisbon, fields, cancelled_at,
                                              penalty):
    body = reservation(**{"cancellation_deadline": None, **fields})
    assert_envelope_success(post(client, "/reservations", body, push), 201)
    data = cancel(client, push, {"cancelled_at": cancelled_at.isoformat()} if cancelled_at
                  else {})
    assert data["penalty"] == {"amount": penalty, "currency": "EUR", "partner_claim": None,
                               "partner_claim_currency": None}
    assert data["reconciliation"] == []


@pytest.mark.parametrize("claim, differs", [
    ({"penalty_amount": 170}, False),
    ({"penalty_amount": "170.00", "penalty_currency": "EUR"}, False),
    ({"penalty_amount": 100}, True),
    ({"penalty_amount": 170, "penalty_currency": "USD"}, True),
])
def test_the_partners_claim_is_kept_not_applied(client, push, lisbon, db, claim, differs):
    post(client, "/reservations", reservation(is_non_refundable=True), push)
    data = cancel(client, push, claim)
    assert data["penalty"]["amount"] == 170
    assert data["penalty"]["partner_claim"] == float(claim["penalty_amount"])
    codes = [i["code"] for i in data["reconciliation"]]
    assert codes == (["penalty_claim_differs"] if differs else [])
    if differs:
        [item] = items(db)
        assert item["details"]["service_penalty"] == "170.00"


def test_orphan_cancel_then_the_late_reservation_is_stored_cancelled(client, push, lisbon, db):
    data = cancel(client, push, {"penalty_amount": 0, "cancelled_at": day(-10).isoformat()})
    assert data["orphan"] is True
    assert data["reservation"]["received"] is False
    assert data["reservation"]["status"] == "cancelled"
    assert data["penalty"] == {"amount": None, "currency": None, "partner_claim": 0,
                               "partner_claim_currency": None}
    assert [i["code"] for i in data["reconciliation"]] == ["orphan_cancellation"]

    late = assert_envelope_success(
        post(client, "/reservations", reservation(is_non_refundable=True), push), 201)
    assert late["reservation"]["status"] == "cancelled"
    assert late["reservation"]["received"] is True
    assert late["acknowledgement"]["ack_id"] != data["acknowledgement"]["ack_id"]
    assert available(db, "DBL") == [5] * 6
    # the penalty is computed once the amount is known, and the claim of 0 differs from it
    assert [i["code"] for i in late["reconciliation"]] == ["penalty_claim_differs"]
    again = cancel(client, push, {"penalty_amount": 0, "cancelled_at": day(-10).isoformat()})
    assert again["idempotent_replay"] is True and again["orphan"] is True
    assert again["penalty"]["amount"] == 170
    assert available(db, "DBL") == [5] * 6
    assert [i["code"] for i in items(db)] == ["orphan_cancellation", "penalty_claim_differs"]


def test_cancel_without_a_body(client, push, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    response = client.post(API + "/reservations/CM-1/cancel", headers=push)
    assert assert_envelope_success(response)["reservation"]["status"] == "cancelled"
    assert available(db, "DBL") == [5] * 6


@pytest.mark.parametrize("arrives, penalty", [
    # 12:00 UTC is the same day in Lisbon, summer or winter: on the deadline day it is free,
    # the day after it costs the whole net amount.
    (lambda deadline: dt.datetime.combine(deadline, dt.time(12), dt.timezone.utc), 0),
    (lambda deadline: dt.datetime.combine(deadline + dt.timedelta(days=1), dt.time(12),
                                          dt.timezone.utc), 170),
])
def test_without_cancelled_at_the_penalty_day_is_the_given_arrival_in_hotel_time(
        db, issue, push, lisbon, client, arrives, penalty):
    """The use case judges the deadline by the `now` it is given (the route reads the clock
    once), as the day it is at the hotel."""
    from connectivity.auth.authenticate import Caller
    from connectivity.reservations.service import cancel_reservation

    deadline = day(-1)
    assert_envelope_success(post(client, "/reservations", reservation(
        cancellation_deadline=deadline.isoformat()), push), 201)
    partner_id = db.run(lambda c: c.execute("SELECT id FROM partners WHERE code = 'acme'")
                        .fetchone()["id"])
    caller = Caller(key_id="k", key_name="k", environment="sandbox", partner_id=partner_id,
                    partner_code="acme", partner_name="Acme",
                    scopes=frozenset({"reservation.cancel"}), requires_signature=False,
                    rate_limit_per_minute=60, expires_at=None, has_mapped_properties=True,
                    count_mapped_properties=lambda: 1)
    data = cancel_reservation(db, caller, "CM-1", {}, "{}", "req-1", arrives(deadline))
    assert data["penalty"]["amount"] == penalty
