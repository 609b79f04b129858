"""A claim proves its booking exists: a reader that finds the claim but not yet the booking (on
Citus, between the two workers' commits; store/claimed.py) reads again, and at the bound answers
503 `service_unavailable` with Retry-After, never 404. Here the claim is written alone, so the
booking never shows; the bound is shortened to keep the tests quick."""

from __future__ import annotations

import pytest

from connectivity.store import claimed
from tests.support.envelope import assert_envelope_failure, assert_envelope_success

from tests.bookings.conftest import API, available, booking_body


@pytest.fixture
def claim_alone(db, monkeypatch, catalog):
    """A committed claim of ACME-BKG-1 whose booking is not there."""
    monkeypatch.setattr(claimed, "WAIT_SECONDS", 0.05)

    def write(conn):
        conn.execute(
            "INSERT INTO booking_claims (partner_id, environment, partner_reference, booking_id, "
            "property_id) SELECT pa.id, 'sandbox', 'ACME-BKG-1', nextval('bookings_id_seq'), "
            "pr.id FROM partners pa, properties pr WHERE pa.code = 'acme' AND pr.code = 'LIS1'")
    db.run(write)


def unavailable(response) -> None:
    assert_envelope_failure(response, 503, "service_unavailable")
    assert response.headers["Retry-After"] == "1"


def test_a_read_of_a_claimed_booking_not_visible_is_503_not_404(client, pull, claim_alone):
    unavailable(client.get(f"{API}/bookings/ACME-BKG-1", headers=pull))


def test_a_cancel_of_a_claimed_booking_not_visible_is_503_not_404(client, pull, claim_alone):
    unavailable(client.post(f"{API}/bookings/ACME-BKG-1/cancel", json={}, headers=pull))


def test_a_replay_of_a_claimed_booking_not_visible_is_503_and_books_nothing(
        client, pull, lisbon, claim_alone, db):
    unavailable(client.post(f"{API}/bookings", json=booking_body(), headers=pull))
    assert available(db) == [5, 5, 5, 5]


def test_a_reference_never_claimed_is_still_404(client, pull, catalog, monkeypatch):
    monkeypatch.setattr(claimed, "WAIT_SECONDS", 60)  # a wait here would hang the test
    assert_envelope_failure(client.get(f"{API}/bookings/NEVER", headers=pull), 404,
                            "not_found")


def test_a_visible_booking_is_read_at_once(client, pull, lisbon, monkeypatch):
    assert client.post(f"{API}/bookings", json=booking_body(), headers=pull).status_code == 201
    monkeypatch.setattr(claimed, "WAIT_SECONDS", 60)
    data = assert_envelope_success(client.get(f"{API}/bookings/ACME-BKG-1", headers=pull))
    assert data["booking"]["partner_reference"] == "ACME-BKG-1"
