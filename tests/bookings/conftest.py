"""Shared by the booking tests: pull keys of two partners, ARI on LIS1 (demo catalogue), and
request builders for quote and booking."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

API = "/api/connectivity/v1"
START = dt.date.today() + dt.timedelta(days=5)
NIGHTS = 4

# A second partner mapping the same LIS1 property under its own codes.
GLOBEX = json.dumps({"partners": [{"code": "globex", "name": "Globex Trips", "mappings": [
    {"property": "LIS1", "hotel_code": "GLX-LIS", "active": True,
     "room_types": {"DBL": "GLX-DBL"}, "rate_plans": {"BAR": "GLX-BAR"}}]}]})


def day(offset: int) -> str:
    return (START + dt.timedelta(days=offset)).isoformat()


def room_guests(rooms: int = 1, adults: int = 2) -> list[dict]:
    return [{"room_number": r, "first_name": f"Ana{r}{a}", "last_name": "Silva",
             "is_adult": True, "nationality": "PT"}
            for r in range(1, rooms + 1) for a in range(adults)]


def booking_body(reference: str = "ACME-BKG-1", *, nights: int = 2, offset: int = 0,
                 rooms: int = 1, total="200.00", **fields) -> dict:
    return {"partner_reference": reference, "hotel_code": "ACME-LIS",
            "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
            "check_in": day(offset), "check_out": day(offset + nights), "rooms": rooms,
            "guests": room_guests(rooms),
            "contact": {"first_name": "Ana", "email": "ana@example.com"},
            "total_amount": total, "currency": "EUR", **fields}


def quote_body(*, nights: int = 2, offset: int = 0, rooms: int = 1, **fields) -> dict:
    return {"hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
            "check_in": day(offset), "check_out": day(offset + nights), "rooms": rooms,
            "occupancy": [{"adults": 2}], **fields}


@pytest.fixture
def pull(issue, catalog):
    return {"Authorization": f"Bearer {issue('pull', rate_limit=100000).token}"}


@pytest.fixture
def globex(db, issue, catalog):
    db.run(load_catalog, parse_catalog(GLOBEX))
    return {"Authorization": f"Bearer {issue('pull', partner='globex', rate_limit=100000).token}"}


@pytest.fixture
def lisbon(db, catalog):
    """NIGHTS nights from START: DBL 5 rooms; BAR 100 a night (single 80, extra adult 30, child
    15), NRF 90 on DBL."""
    nights = stay_dates(START, NIGHTS)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00", single_rate="80.00",
                  extra_adult_rate="30.00", extra_child_rate="15.00")
    set_plan_days(db, "LIS1", "DBL", "NRF", nights, rate="90.00", extra_child_rate="10.00")
    return nights


def available(db, room_type: str = "DBL", property_code: str = "LIS1") -> list[int | None]:
    """The room type's inventory per night from START, in date order."""
    def read(conn):
        return [r["available"] for r in conn.execute(
            "SELECT d.available FROM room_type_days d JOIN room_types rt ON rt.id = "
            "d.room_type_id JOIN properties p ON p.id = d.property_id WHERE p.code = %s AND "
            "rt.code = %s AND d.date >= %s ORDER BY d.date", (property_code, room_type, START))]
    return db.run(read)


def booking_count(db) -> int:
    """Bookings stored; a claim never outlives a failed booking, so the claims agree."""
    def count(conn):
        return conn.execute("SELECT (SELECT count(*) FROM bookings) AS bookings, "
                            "(SELECT count(*) FROM booking_claims) AS claims").fetchone()
    counts = db.run(count)
    assert counts["bookings"] == counts["claims"], counts
    return counts["bookings"]
