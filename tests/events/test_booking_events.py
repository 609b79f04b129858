"""Bookings in the event log (contract 12.2): booking.* for the booking partner, hotel_booking.*
for the hotel's receiver in its own codes, one event per booking and per cancellation, written
with the booking (never for a refused one, nor for a sandbox scenario's forced answer), never
for the receiver's own bookings."""

from __future__ import annotations

import json

from tests.bookings.conftest import booking_body, lisbon, pull  # noqa: F401 - fixtures
from tests.events.conftest import API, read_events, receiver  # noqa: F401 - fixture
from tests.support.envelope import assert_envelope_success

HOTEL_BOOKING_FIELDS = {"confirmation_number", "status", "hotel_code", "room_type_code",
                        "rate_plan_code", "check_in", "check_out", "rooms", "nights",
                        "total_amount", "currency", "cancellation_policy", "guests", "contact",
                        "channel_name", "created_at", "cancelled_at", "penalty_amount",
                        "unmapped"}


def test_a_booking_and_its_cancellation_are_one_event_each_for_the_booker(client, db, pull,
                                                                           lisbon):
    made = client.post(f"{API}/bookings", json=booking_body("EV-1"), headers=pull)
    assert made.status_code == 201
    again = client.post(f"{API}/bookings", json=booking_body("EV-1"), headers=pull)
    assert again.status_code == 200  # a replay writes nothing
    cancel = assert_envelope_success(client.post(f"{API}/bookings/EV-1/cancel", json={},
                                                 headers=pull))
    client.post(f"{API}/bookings/EV-1/cancel", json={}, headers=pull)  # replayed cancel
    events = read_events(client, db, pull)
    assert [e["type"] for e in events] == ["booking.confirmed", "booking.cancelled"]
    assert events[0]["data"] == {"booking": made.get_json()["data"]["booking"]}
    assert events[1]["data"] == {"booking": cancel["booking"]}
    assert all(e["event_id"].startswith("evt_") for e in events)


def test_a_refused_booking_makes_no_event(client, db, pull, lisbon):
    refused = client.post(f"{API}/bookings", json=booking_body("EV-2", total="1.00"),
                          headers=pull)
    assert refused.status_code == 409
    forced = client.post(f"{API}/bookings", json=booking_body("EV-3"),
                         headers={**pull, "X-Sandbox-Scenario": "sold_out"})
    assert forced.status_code == 409
    made = client.post(f"{API}/bookings", json=booking_body("EV-4"), headers=pull)
    assert made.status_code == 201
    forced_cancel = client.post(f"{API}/bookings/EV-4/cancel", json={},
                                headers={**pull, "X-Sandbox-Scenario":
                                         "penalty_exceeds_expectation"})
    assert forced_cancel.status_code == 409
    assert [e["type"] for e in read_events(client, db, pull)] == ["booking.confirmed"]


def test_the_hotels_receiver_gets_each_booking_in_its_own_codes(client, db, pull, lisbon,
                                                                 receiver):
    bar = assert_envelope_success(client.post(f"{API}/bookings", json=booking_body("EV-5"),
                                              headers=pull), 201)["booking"]
    nrf = booking_body("EV-6", rate_plan_code="ACME-NRF", total="180.00")
    assert client.post(f"{API}/bookings", json=nrf, headers=pull).status_code == 201
    cancelled = assert_envelope_success(client.post(f"{API}/bookings/EV-5/cancel", json={},
                                                    headers=pull))["booking"]
    events = read_events(client, db, receiver)
    assert [e["type"] for e in events] == ["hotel_booking.confirmed", "hotel_booking.confirmed",
                                           "hotel_booking.cancelled"]
    first, second, third = (e["data"]["booking"] for e in events)
    assert set(first) == HOTEL_BOOKING_FIELDS
    assert first == {**{k: bar[k] for k in HOTEL_BOOKING_FIELDS & set(bar)},
                     "hotel_code": "GLX-LIS", "room_type_code": "GLX-DBL",
                     "rate_plan_code": "GLX-BAR", "channel_name": "Acme Travel", "unmapped": []}
    assert (second["rate_plan_code"], second["unmapped"]) == (None, ["rate_plan"])
    assert second["room_type_code"] == "GLX-DBL"
    assert third["status"] == "cancelled"
    assert (third["cancelled_at"], third["penalty_amount"]) == (cancelled["cancelled_at"],
                                                                cancelled["penalty_amount"])
    # The booker does not see the receiver's events, nor the receiver the booker's.
    assert {e["type"] for e in read_events(client, db, pull)} == {"booking.confirmed",
                                                                  "booking.cancelled"}


def test_never_for_the_receivers_own_bookings(client, db, lisbon, receiver, issue):
    globex_pull = {"Authorization": f"Bearer {issue('pull', partner='globex').token}"}
    own = booking_body("GLX-1", hotel_code="GLX-LIS", room_type_code="GLX-DBL",
                       rate_plan_code="GLX-BAR")
    assert client.post(f"{API}/bookings", json=own, headers=globex_pull).status_code == 201
    assert read_events(client, db, receiver) == []
    assert [e["type"] for e in read_events(client, db, globex_pull)] == ["booking.confirmed"]


def compact(answer) -> bytes:
    """The answer's JSON as every answer of the service writes it: no space between tokens."""
    return json.dumps(answer.get_json(), separators=(",", ":"), ensure_ascii=False).encode()


def test_events_are_written_as_compactly_as_any_other_answer(client, db, pull, lisbon):
    guests = [{"room_number": 1, "first_name": name, "last_name": "Ça Va", "is_adult": True}
              for name in ("Zoë", "Ana")]
    made = client.post(f"{API}/bookings", json=booking_body("EV-JSON", guests=guests),
                       headers=pull)
    assert made.status_code == 201
    read_events(client, db, pull)   # settled: the event is served
    events = client.get(f"{API}/events", headers=pull)
    assert events.get_json()["data"]["events"][0]["data"] == {
        "booking": made.get_json()["data"]["booking"]}
    for answer in (events, client.get(f"{API}/ping", headers=pull)):
        assert answer.get_data().rstrip(b"\n") == compact(answer), answer.get_data()[:300]
