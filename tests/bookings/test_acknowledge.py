"""POST /hotel-bookings/{confirmationNumber}/acknowledge (contract 13.2): the status named must be
the booking's (409 `status_changed` otherwise, nothing stored), a repeat changes nothing, the
hotel's code replaces the stored one or stays; the booking partner sees the hotel's answer on
its booking, in its list and events, and hears of it by booking.hotel_confirmed."""

from __future__ import annotations

import pytest

from tests.bookings.conftest import API
from tests.bookings.test_hotel_bookings import acknowledge, book, hotel  # noqa: F401 - fixture
from tests.events.conftest import read_events
from tests.support.envelope import assert_envelope_failure, assert_envelope_success


def acknowledged(client, headers, number, status="confirmed", **fields) -> dict:
    return assert_envelope_success(acknowledge(client, headers, number, status, **fields))[
        "hotel_booking"]


def booking(client, pull, reference) -> dict:
    return assert_envelope_success(client.get(f"{API}/bookings/{reference}",
                                              headers=pull))["booking"]


def hotel_confirmed(client, db, pull) -> list[dict]:
    return [e["data"]["booking"] for e in read_events(client, db, pull,
                                                      "&types=booking.hotel_confirmed")]


def test_the_first_acknowledgement_reaches_the_booking_partner(client, db, pull, hotel, lisbon):
    number = book(client, pull, "ACK-1")["confirmation_number"]
    assert booking(client, pull, "ACK-1")["hotel_confirmation_code"] is None
    answer = acknowledged(client, hotel, number, hotel_confirmation_code="LIS-88213")
    assert (answer["acknowledged"], answer["hotel_confirmation_code"]) == (True, "LIS-88213")
    assert answer["acknowledged_at"] is not None
    assert assert_envelope_success(client.get(f"{API}/hotel-bookings/{number}",
                                              headers=hotel))["hotel_booking"] == answer
    seen = booking(client, pull, "ACK-1")
    assert seen["hotel_confirmation_code"] == "LIS-88213"
    assert seen["hotel_acknowledged_at"] == answer["acknowledged_at"]
    listed = assert_envelope_success(client.get(f"{API}/bookings", headers=pull))["bookings"]
    assert listed == [seen]
    assert hotel_confirmed(client, db, pull) == [seen]


def test_a_repeat_changes_nothing_and_a_new_code_replaces_the_old(client, db, pull, hotel,
                                                                   lisbon):
    number = book(client, pull, "ACK-1")["confirmation_number"]
    first = acknowledged(client, hotel, number, hotel_confirmation_code="A-1")
    assert acknowledged(client, hotel, number, hotel_confirmation_code="A-1") == first
    assert acknowledged(client, hotel, number) == first  # left out: the code stays
    assert len(hotel_confirmed(client, db, pull)) == 1
    second = acknowledged(client, hotel, number, hotel_confirmation_code="A-2")
    assert second == {**first, "hotel_confirmation_code": "A-2"}  # same acknowledged_at
    events = hotel_confirmed(client, db, pull)
    assert [e["hotel_confirmation_code"] for e in events] == ["A-1", "A-2"]
    assert events[1]["hotel_acknowledged_at"] == first["acknowledged_at"]


def test_an_acknowledgement_without_a_code_confirms_all_the_same(client, db, pull, hotel,
                                                                 lisbon):
    number = book(client, pull, "ACK-1")["confirmation_number"]
    answer = acknowledged(client, hotel, number)
    assert (answer["acknowledged"], answer["hotel_confirmation_code"]) == (True, None)
    [event] = hotel_confirmed(client, db, pull)
    assert event["hotel_acknowledged_at"] == answer["acknowledged_at"]


def test_a_stale_status_is_status_changed_and_stores_nothing(client, db, pull, hotel, lisbon):
    number = book(client, pull, "ACK-1")["confirmation_number"]
    before = assert_envelope_success(client.get(f"{API}/hotel-bookings/{number}",
                                                headers=hotel))["hotel_booking"]
    error = assert_envelope_failure(acknowledge(client, hotel, number, "cancelled",
                                                hotel_confirmation_code="X-1"),
                                    409, "status_changed")
    assert error["details"] == {"status": "confirmed"}
    assert assert_envelope_success(client.get(f"{API}/hotel-bookings/{number}",
                                              headers=hotel))["hotel_booking"] == before
    assert client.post(f"{API}/bookings/ACK-1/cancel", json={}, headers=pull).status_code == 200
    error = assert_envelope_failure(acknowledge(client, hotel, number,
                                                hotel_confirmation_code="X-2"),
                                    409, "status_changed")
    assert error["details"] == {"status": "cancelled"}
    seen = booking(client, pull, "ACK-1")
    assert (seen["hotel_confirmation_code"], seen["hotel_acknowledged_at"]) == (None, None)
    # Cancelled before the hotel loaded it: its cancellation is acknowledged on its own, and
    # the booking partner is told of no hotel confirmation.
    answer = acknowledged(client, hotel, number, "cancelled")
    assert (answer["status"], answer["acknowledged"]) == ("cancelled", True)
    assert booking(client, pull, "ACK-1")["hotel_acknowledged_at"] is None
    assert hotel_confirmed(client, db, pull) == []


def test_a_cancellation_needs_its_own_acknowledgement(client, db, pull, hotel, lisbon):
    number = book(client, pull, "ACK-1")["confirmation_number"]
    confirmed = acknowledged(client, hotel, number, hotel_confirmation_code="H-7")
    cancel = assert_envelope_success(client.post(f"{API}/bookings/ACK-1/cancel", json={},
                                                 headers=pull))
    # The booking partner's cancel answer and event carry the hotel's answer.
    assert cancel["booking"]["hotel_confirmation_code"] == "H-7"
    assert cancel["booking"]["hotel_acknowledged_at"] == confirmed["acknowledged_at"]
    now = assert_envelope_success(client.get(f"{API}/hotel-bookings/{number}",
                                             headers=hotel))["hotel_booking"]
    assert (now["status"], now["acknowledged"], now["acknowledged_at"]) == (
        "cancelled", False, None)
    assert now["hotel_confirmation_code"] == "H-7"
    unacknowledged = assert_envelope_success(client.get(
        f"{API}/hotel-bookings?acknowledged=false", headers=hotel))["hotel_bookings"]
    assert [b["confirmation_number"] for b in unacknowledged] == [number]
    answer = acknowledged(client, hotel, number, "cancelled")
    assert (answer["acknowledged"], answer["hotel_confirmation_code"]) == (True, "H-7")
    assert answer["acknowledged_at"] > confirmed["acknowledged_at"]
    assert assert_envelope_success(client.get(
        f"{API}/hotel-bookings?acknowledged=false", headers=hotel))["hotel_bookings"] == []
    seen = booking(client, pull, "ACK-1")
    assert seen["hotel_acknowledged_at"] == confirmed["acknowledged_at"]
    cancelled_events = [e for e in read_events(client, db, pull) if
                        e["type"] == "booking.cancelled"]
    assert cancelled_events[0]["data"]["booking"]["hotel_confirmation_code"] == "H-7"
    # A code given with the cancellation's acknowledgement is a change the partner hears of.
    acknowledged(client, hotel, number, "cancelled", hotel_confirmation_code="H-7-X")
    assert [e["hotel_confirmation_code"] for e in hotel_confirmed(client, db, pull)] == [
        "H-7", "H-7-X"]


@pytest.mark.parametrize("body, field", [
    ({}, "status"),
    ({"status": "pending"}, "status"),
    ({"status": "confirmed", "hotel_confirmation_code": ""}, "hotel_confirmation_code"),
    ({"status": "confirmed", "hotel_confirmation_code": "has space"}, "hotel_confirmation_code"),
    ({"status": "confirmed", "hotel_confirmation_code": "A" * 65}, "hotel_confirmation_code"),
    ({"status": "confirmed", "hotel_confirmation_code": "A-1\n"}, "hotel_confirmation_code"),
    ({"status": "confirmed", "hotel_confirmation_code": 12}, "hotel_confirmation_code"),
    ({"status": "confirmed", "code": "A-1"}, "code"),
])
def test_bad_input_is_validation_failed_naming_the_field(client, pull, hotel, lisbon, body,
                                                         field):
    number = book(client, pull, "ACK-1")["confirmation_number"]
    error = assert_envelope_failure(client.post(f"{API}/hotel-bookings/{number}/acknowledge",
                                                json=body, headers=hotel),
                                    422, "validation_failed")
    assert list(error["details"]["fields"]) == [field]


def test_the_widest_code_is_kept_as_sent(client, pull, hotel, lisbon):
    number = book(client, pull, "ACK-1")["confirmation_number"]
    code = "Az09._/-" * 8
    assert acknowledged(client, hotel, number, hotel_confirmation_code=code)[
        "hotel_confirmation_code"] == code
