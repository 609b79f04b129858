"""The field rules of the specification's tables: bad input is 422 `validation_failed` naming
every failing path, never a 5xx, and nothing is kept."""

from __future__ import annotations

import pytest

from tests.support.envelope import assert_envelope_failure, assert_envelope_success

from tests.reservations.conftest import day, nightly, post, reservation

ROOM = {"room_type_code": "ACME-DBL", "quantity": 1, "adults": 2}


def room(**fields):
    return [dict(ROOM, **fields)]


def kept(db):
    return db.run(lambda c: c.execute("SELECT count(*) AS n FROM reservations").fetchone())["n"]


@pytest.mark.parametrize("fields, path", [
    ({"rooms": room(adults=0)}, "rooms.0.adults"),
    ({"rooms": room(adults=21)}, "rooms.0.adults"),
    ({"rooms": room(adults=1.5)}, "rooms.0.adults"),
    ({"rooms": room(adults="2")}, "rooms.0.adults"),
    ({"rooms": room(quantity=0)}, "rooms.0.quantity"),
    ({"rooms": room(quantity=31)}, "rooms.0.quantity"),
    ({"rooms": room(quantity=2**70)}, "rooms.0.quantity"),
    ({"rooms": room(children=11)}, "rooms.0.children"),
    ({"rooms": room(child_ages=[18])}, "rooms.0.child_ages.0"),
    ({"rooms": room(nightly_rates=[{"date": day(5).isoformat(), "amount": 1}])},
     "rooms.0.nightly_rates"),
    ({"rooms": room(nightly_rates=nightly(1) * 2)}, "rooms.0.nightly_rates"),
    ({"rooms": room(nightly_rates=[{"date": day(0).isoformat(), "amount": -1}])},
     "rooms.0.nightly_rates.0.amount"),
    ({"rooms": room(nightly_rates=[{"date": day(0).isoformat()}])},
     "rooms.0.nightly_rates.0.amount"),
    ({"rooms": room(room_type_code="")}, "rooms.0.room_type_code"),
    ({"rooms": room(room_type_code="A/B")}, "rooms.0.room_type_code"),
    ({"rooms": room(room_type_code="X" * 121)}, "rooms.0.room_type_code"),
    ({"rooms": room(extra=1)}, "rooms.0.extra"),
    ({"rooms": []}, "rooms"),
    ({"rooms": room() * 51}, "rooms"),
    ({"guests": []}, "guests"),
    ({"guests": [{"room_number": 0, "first_name": "A", "is_adult": True}]}, "guests.0.room_number"),
    ({"guests": [{"room_number": 1, "first_name": "A" * 101, "is_adult": True}]},
     "guests.0.first_name"),
    ({"guests": [{"room_number": 1, "first_name": "A", "is_adult": "yes"}]}, "guests.0.is_adult"),
    ({"guests": [{"room_number": 1, "first_name": "A", "is_adult": 1}]}, "guests.0.is_adult"),
    ({"guests": [{"room_number": 1, "first_name": "A\u0000B", "is_adult": True}]},
     "guests.0.first_name"),
    ({"guests": [{"room_number": 1, "first_name": "A", "is_adult": True, "nationality": "XX"}]},
     "guests.0.nationality"),
    ({"contact": {"email": "not-an-address"}}, "contact.email"),
    ({"contact": {"email": "a@" + "b" * 250 + ".com"}}, "contact.email"),
    ({"contact": {"phone": "1" * 51}}, "contact.phone"),
    ({"partner_reference": "has space"}, "partner_reference"),
    ({"partner_reference": "R" * 121}, "partner_reference"),
    ({"partner_reference": None}, "partner_reference"),
    ({"guest_confirmation": "G" * 121}, "guest_confirmation"),
    ({"hotel_code": None}, "hotel_code"),
    ({"status": "pending"}, "status"),
    ({"check_in": "2026/12/01"}, "check_in"),
    ({"check_out": day(0).isoformat()}, "check_out"),
    ({"check_out": day(-1).isoformat()}, "check_out"),
    ({"check_out": day(366).isoformat()}, "check_out"),
    ({"net_amount": -1}, "net_amount"),
    ({"net_amount": "12,50"}, "net_amount"),
    ({"net_amount": True}, "net_amount"),
    ({"net_amount": "1e3"}, "net_amount"),
    ({"net_amount": 10**13}, "net_amount"),
    ({"net_amount": None}, "net_amount"),
    ({"net_currency": "EURO"}, "net_currency"),
    ({"net_currency": "eur"}, "net_currency"),
    ({"sell_currency": None}, "sell_currency"),          # sell_amount without its currency
    ({"sell_amount": None}, "sell_amount"),              # sell_currency without its amount
    ({"special_requests": "x" * 2001}, "special_requests"),
    ({"booked_at": "yesterday"}, "booked_at"),
    ({"cancellation_deadline": "2026-02-30"}, "cancellation_deadline"),
    ({"is_non_refundable": "true"}, "is_non_refundable"),
    ({"unknown_field": 1}, "unknown_field"),
])
def test_create_field_rules(client, push, lisbon, db, fields, path):
    response = post(client, "/reservations", reservation(**fields), push)
    error = assert_envelope_failure(response, 422, "validation_failed")
    assert path in error["details"]["fields"], error
    assert kept(db) == 0


def test_a_lone_surrogate_is_refused_not_a_500(client, push, lisbon, db):
    import json
    body = json.dumps(reservation(special_requests="X")).replace('"X"', '"\\ud800"')
    response = client.post("/api/connectivity/v1/reservations", data=body, headers=push,
                           content_type="application/json")
    error = assert_envelope_failure(response, 422, "validation_failed")
    assert "special_requests" in error["details"]["fields"]


def test_every_failing_path_is_reported(client, push, lisbon):
    body = reservation(rooms=room(adults=0, quantity=0), net_currency="x")
    del body["guests"]
    error = assert_envelope_failure(post(client, "/reservations", body, push), 422,
                                    "validation_failed")
    assert {"rooms.0.adults", "rooms.0.quantity", "net_currency", "guests"} <= set(
        error["details"]["fields"])


def test_the_bounds_themselves_are_accepted(client, push, lisbon):
    body = reservation(
        partner_reference="R" * 120, check_out=day(365).isoformat(),
        rooms=room(adults=20, quantity=30, children=10, child_ages=[0, 17]) * 50,
        guests=[{"room_number": 1500, "first_name": "A" * 100, "last_name": "B" * 100,
                 "is_adult": False}],
        contact={}, special_requests="x" * 2000, sell_amount=None, sell_currency=None,
        net_amount="999999999999.999999", net_currency="JPY")
    assert_envelope_success(post(client, "/reservations", body, push), 201)


@pytest.mark.parametrize("body, path", [
    ({"penalty_amount": -1}, "penalty_amount"),
    ({"penalty_currency": "XYZ"}, "penalty_currency"),
    ({"reason": "r" * 501}, "reason"),
    ({"cancelled_at": "2026-13-01"}, "cancelled_at"),
    ({"refund": True}, "refund"),
])
def test_cancel_field_rules(client, push, lisbon, db, body, path):
    error = assert_envelope_failure(post(client, "/reservations/CM-1/cancel", body, push), 422,
                                    "validation_failed")
    assert path in error["details"]["fields"]
    assert kept(db) == 0


MODIFY = {"check_in": day(0).isoformat(), "check_out": day(2).isoformat(), "rooms": [ROOM],
          "net_amount": 1, "net_currency": "EUR"}


@pytest.mark.parametrize("fields, path", [
    ({"rooms": room(adults=0)}, "rooms.0.adults"),
    ({"rooms": room(quantity=31)}, "rooms.0.quantity"),
    ({"rooms": room(rate_plan_code="ACME-BAR")}, "rooms.0.rate_plan_code"),  # not in the table
    ({"rooms": room() * 51}, "rooms"),
    ({"check_out": day(0).isoformat()}, "check_out"),
    ({"net_currency": None}, "net_currency"),
    ({"status": "modified"}, "status"),
    ({"modified_at": "soon"}, "modified_at"),
])
def test_modify_field_rules(client, push, lisbon, db, fields, path):
    body = {k: v for k, v in dict(MODIFY, **fields).items() if v is not None}
    error = assert_envelope_failure(post(client, "/reservations/CM-1/modify", body, push), 422,
                                    "validation_failed")
    assert path in error["details"]["fields"]
    assert kept(db) == 0
