"""booking.hotel_confirmed by webhook (contract 13.2, 12.3): a type endpoints subscribe to with
booking.read; the booking partner's endpoint receives the booking as GET /bookings/{reference}
shows it once the hotel acknowledged it, signed, and only once for a repeated acknowledgement."""

from __future__ import annotations

from standardwebhooks import Webhook

from devtools.webhook_receiver import receiver
from tests.bookings.conftest import START, booking_body
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates
from tests.support.envelope import API, assert_envelope_failure, assert_envelope_success
from tests.support.signing import bearer
from tests.webhooks.conftest import create, created
from tests.webhooks.delivery import run_rounds
from tests.webhooks.test_delivery import senders  # noqa: F401 - fixture


def test_the_type_needs_booking_read(client, pull, push):
    created(client, pull, "http://127.0.0.1:8080/hook", ["booking.hotel_confirmed"])
    error = assert_envelope_failure(create(client, push, "http://127.0.0.1:8080/hook",
                                           ["booking.hotel_confirmed"]), 403,
                                    "insufficient_scope")
    assert "booking.read" in str(error["details"])


def test_the_booking_partner_hears_the_hotels_confirmation_once(client, db, pull, issue,
                                                                senders):
    nights = stay_dates(START, 2)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    hotel = bearer(issue("push", partner="lisboa-cm", signed=False).token)
    with receiver() as hook:
        endpoint = created(client, pull, hook.url, ["booking.hotel_confirmed"])
        number = assert_envelope_success(client.post(
            f"{API}/bookings", json=booking_body("WH-1"), headers=pull), 201)[
            "booking"]["confirmation_number"]
        for _ in range(2):  # the repeat stores nothing and announces nothing
            assert_envelope_success(client.post(
                f"{API}/hotel-bookings/{number}/acknowledge",
                json={"status": "confirmed", "hotel_confirmation_code": "LIS-9"},
                headers=hotel))
        run_rounds(db, senders, lambda: len(hook.received) >= 1 and senders.in_flight() == 0)
        run_rounds(db, senders, lambda: senders.in_flight() == 0)
        requests = list(hook.received)
    assert len(requests) == 1
    event = Webhook(endpoint["secret"]).verify(requests[0].body, requests[0].headers)
    assert event["type"] == "booking.hotel_confirmed"
    seen = assert_envelope_success(client.get(f"{API}/bookings/WH-1", headers=pull))["booking"]
    assert event["data"] == {"booking": seen}
    assert seen["hotel_confirmation_code"] == "LIS-9"
