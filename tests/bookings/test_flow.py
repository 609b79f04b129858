"""Quote, book, read and cancel through the API: the happy path and the payloads of contract
section 7."""

from __future__ import annotations

import datetime as dt

from tests.support.envelope import assert_envelope_success

from tests.bookings.conftest import API, available, booking_body, booking_count, day, quote_body


def test_quote_then_book_then_read_then_cancel(client, pull, lisbon, db):
    quoted = assert_envelope_success(client.post(f"{API}/bookings/quote", json=quote_body(),
                                                 headers=pull))
    assert quoted["total_amount"] == 200 and quoted["currency"] == "EUR"
    assert [n["amount"] for n in quoted["nights"]] == [100, 100]
    assert len(quoted["quote_token"]) <= 512
    assert quoted["cancellation_policy"]["tiers"][0]["within_hours"] == 48
    expires = dt.datetime.fromisoformat(quoted["expires_at"])
    left = expires - dt.datetime.now(dt.timezone.utc)
    assert dt.timedelta(seconds=840) < left <= dt.timedelta(seconds=900)  # QUOTE_TTL_SECONDS

    body = booking_body(quote_token=quoted["quote_token"], total=200)
    response = client.post(f"{API}/bookings", json=body, headers=pull)
    data = assert_envelope_success(response, 201)
    booking = data["booking"]
    assert data["idempotent_replay"] is False
    assert booking["status"] == "confirmed"
    assert booking["partner_reference"] == "ACME-BKG-1"
    assert booking["confirmation_number"].startswith("PCS-")
    assert (booking["total_amount"], booking["currency"]) == (200, "EUR")
    assert booking["nights"] == [{"date": day(0), "amount": 100}, {"date": day(1), "amount": 100}]
    assert booking["guests"] == body["guests"] and booking["contact"] == body["contact"]
    assert booking["cancelled_at"] is None and booking["penalty_amount"] is None
    assert available(db) == [4, 4, 5, 5]

    read = assert_envelope_success(client.get(f"{API}/bookings/ACME-BKG-1", headers=pull))
    assert read["booking"] == booking

    cancelled = assert_envelope_success(client.post(f"{API}/bookings/ACME-BKG-1/cancel",
                                                    json={"reason": "plans changed"},
                                                    headers=pull))
    assert cancelled["idempotent_replay"] is False
    assert (cancelled["penalty_amount"], cancelled["currency"]) == (0, "EUR")
    assert cancelled["booking"]["status"] == "cancelled"
    assert cancelled["booking"]["cancelled_at"]
    assert available(db) == [5, 5, 5, 5]

    again = assert_envelope_success(client.post(f"{API}/bookings/ACME-BKG-1/cancel", json={},
                                                headers=pull))
    assert again["idempotent_replay"] is True
    assert again["booking"] == cancelled["booking"]
    assert available(db) == [5, 5, 5, 5]
    assert booking_count(db) == 1


def test_book_at_the_live_price_without_a_quote(client, pull, lisbon, db):
    data = assert_envelope_success(client.post(f"{API}/bookings", json=booking_body(),
                                               headers=pull), 201)
    assert data["booking"]["total_amount"] == 200
    assert available(db) == [4, 4, 5, 5]


def test_replay_returns_the_original_and_says_when_the_body_differs(client, pull, lisbon, db):
    first = assert_envelope_success(client.post(f"{API}/bookings", json=booking_body(),
                                                headers=pull), 201)
    same = client.post(f"{API}/bookings", json=booking_body(total=200), headers=pull)
    replay = assert_envelope_success(same, 200)
    assert replay == {"booking": first["booking"], "idempotent_replay": True,
                      "request_differs": False}
    # a different body, and a price that no longer matches: still the original booking
    other = booking_body(total="999", nights=3)
    replay = assert_envelope_success(client.post(f"{API}/bookings", json=other, headers=pull), 200)
    assert replay["booking"] == first["booking"]
    assert replay["request_differs"] is True
    assert available(db) == [4, 4, 5, 5]
    assert booking_count(db) == 1
