"""A statement PostgreSQL cuts off (`DB_STATEMENT_TIMEOUT_SECONDS`) answers 503
`service_unavailable` with Retry-After, never a 500, and leaves nothing behind."""

from __future__ import annotations

import dataclasses

import psycopg
import pytest

from app import create_app

from tests.bookings.conftest import API, available, booking_body, booking_count
from connectivity.web.services import services_of


def lisbon_id(conn) -> int:
    return conn.execute("SELECT id FROM properties WHERE code = 'LIS1'").fetchone()[0]


@pytest.fixture
def impatient_app(settings):
    application = create_app(dataclasses.replace(settings, db_statement_timeout_seconds=0.3))
    yield application
    services_of(application).db.close()
    services_of(application).guards.close()


def test_a_booking_cut_off_by_the_statement_timeout_is_a_503_and_books_nothing(
        impatient_app, services, pull, lisbon, db):
    before = available(db)
    with psycopg.connect(services.database_url) as blocker:
        # Another transaction holds the stay's nights: the booking's locking statement waits
        # on them until PostgreSQL cancels it. (The hotel named: on Citus a FOR UPDATE must
        # be a router query, on the hotel's shard.)
        blocker.execute("SELECT 1 FROM room_type_days WHERE property_id = "
                        "%s FOR UPDATE", (lisbon_id(blocker),))
        response = impatient_app.test_client().post(f"{API}/bookings", json=booking_body(),
                                                    headers=pull)
        blocker.rollback()
    assert response.status_code == 503, response.get_data(as_text=True)
    body = response.get_json()
    assert body["error"]["code"] == "service_unavailable"
    assert int(response.headers["Retry-After"]) >= 1
    assert "canceling statement" not in response.get_data(as_text=True)  # no SQL leaks out
    assert booking_count(db) == 0 and available(db) == before
    # Nothing lingers: the same booking goes through once the lock is gone.
    again = impatient_app.test_client().post(f"{API}/bookings", json=booking_body(),
                                             headers=pull)
    assert again.status_code == 201, again.get_data(as_text=True)
