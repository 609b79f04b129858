"""Shared by the event tests: reading a key's whole log through GET /events, and a second
partner (globex) that receives LIS1's bookings."""

from __future__ import annotations

import json

import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.support.envelope import assert_envelope_success
from tests.support.feed import settle

API = "/api/connectivity/v1"

# globex maps LIS1's DBL and BAR only (NRF and SGL have no globex code) and receives its bookings.
GLOBEX_RECEIVER = json.dumps({"partners": [{
    "code": "globex", "name": "Globex Channel", "mappings": [
        {"property": "LIS1", "hotel_code": "GLX-LIS", "active": True, "receives_bookings": True,
         "room_types": {"DBL": "GLX-DBL"}, "rate_plans": {"BAR": "GLX-BAR"}}]}]})


@pytest.fixture
def receiver(db, issue, catalog):
    """globex's push key (reservation.write: it sees hotel_booking.*)."""
    db.run(load_catalog, parse_catalog(GLOBEX_RECEIVER))
    key = issue("push", partner="globex", signed=False, rate_limit=100_000)
    return {"Authorization": f"Bearer {key.token}"}


def read_events(client, db, headers, query: str = "", limit: int = 500) -> list[dict]:
    """Every event the key sees from the oldest kept, following the cursor to the end."""
    settle(db)
    events, cursor = [], None
    while True:
        params = f"limit={limit}" + (f"&cursor={cursor}" if cursor else "") + query
        data = assert_envelope_success(client.get(f"{API}/events?{params}", headers=headers))
        events += data["events"]
        cursor = data["next_cursor"]
        if not data["has_more"]:
            return events
