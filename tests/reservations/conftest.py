"""Shared by the push-reservation tests: a push key, a clean reservation payload for the demo
catalogue (acme: ACME-LIS with ACME-DBL / ACME-SGL, plans ACME-BAR / ACME-NRF), and inventory
read straight from room_type_days."""

from __future__ import annotations

import copy
import datetime as dt

import pytest

from tests.support.signing import bearer
from tests.support.ari_days import set_room_days, stay_dates

API = "/api/connectivity/v1"
START = dt.date.today() + dt.timedelta(days=5)


def day(offset: int) -> dt.date:
    return START + dt.timedelta(days=offset)


def nightly(nights: int, amount: str = "100.00", offset: int = 0) -> list[dict]:
    return [{"date": day(offset + i).isoformat(), "amount": amount} for i in range(nights)]


def reservation(reference: str = "CM-1", **fields) -> dict:
    """Two nights from START, one ACME-DBL on ACME-BAR at 100.00 a night, sold at 200.00."""
    body = {
        "partner_reference": reference, "guest_confirmation": "G-77",
        "hotel_code": "ACME-LIS", "status": "confirmed",
        "check_in": day(0).isoformat(), "check_out": day(2).isoformat(),
        "rooms": [{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "quantity": 1,
                   "adults": 2, "nightly_rates": nightly(2)}],
        "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                    "is_adult": True, "nationality": "PT"}],
        "contact": {"email": "ana@example.com", "phone": "+351 900 000 000"},
        "sell_amount": "200.00", "sell_currency": "EUR",
        "net_amount": "170.00", "net_currency": "EUR",
        "is_non_refundable": False, "cancellation_deadline": day(-2).isoformat(),
    }
    body.update(copy.deepcopy(fields))
    return {k: v for k, v in body.items() if v is not None}  # None: leave the field out


@pytest.fixture
def push(issue, catalog):
    return bearer(issue("push", signed=False).token)


@pytest.fixture
def lisbon(db, catalog):
    """Six nights from START: DBL 5 rooms, SGL 3 rooms."""
    nights = stay_dates(START, 6)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_room_days(db, "LIS1", "SGL", nights, available=3)
    return nights


def available(db, room_type: str, first: int = 0, nights: int = 6,
              property_code: str = "LIS1") -> list[int | None]:
    """`available` per night from day(first), None where there is no row."""
    def read(conn):
        rows = conn.execute(
            "SELECT d.date, d.available FROM room_type_days d "
            "JOIN room_types rt ON rt.id = d.room_type_id JOIN properties p ON p.id = d.property_id "
            "WHERE p.code = %s AND rt.code = %s", (property_code, room_type)).fetchall()
        return {r["date"]: r["available"] for r in rows}
    by_date = db.run(read)
    return [by_date.get(day(first + i)) for i in range(nights)]


def items(db, reference: str | None = None) -> list[dict]:
    def read(conn):
        return conn.execute(
            "SELECT ri.code, ri.details, ri.version, r.partner_reference FROM reconciliation_items ri "
            "JOIN reservations r ON r.property_id = ri.property_id AND r.id = ri.reservation_id "
            "ORDER BY ri.id").fetchall()
    rows = db.run(read)
    return [r for r in rows if reference is None or r["partner_reference"] == reference]


def post(client, path: str, body, headers):
    return client.post(API + path, json=body, headers=headers)
