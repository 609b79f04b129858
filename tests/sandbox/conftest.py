"""Shared by the sandbox scenario tests: the demo catalogue with its demo ARI, a sandbox pull
key, and a stay a week ahead that sells."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from connectivity.operator.demo_ari import seed_demo_ari
from tests.support.signing import bearer

API = "/api/connectivity/v1"
HEADER = "X-Sandbox-Scenario"

# A production property mapped for acme.
PRODUCTION = """{"properties": [{"code": "PRD1", "name": "Prod Hotel",
  "environment": "production", "country": "ES", "timezone": "Europe/Madrid", "currency": "EUR",
  "max_child_age": 10, "room_types": [{"code": "DBL", "name": "Double", "max_occupancy": 2}],
  "rate_plans": []}],
 "partners": [{"code": "acme", "name": "Acme Travel", "mappings": [
  {"property": "PRD1", "hotel_code": "ACME-MAD", "room_types": {"DBL": "P-DBL"}}]}]}"""


def stay(offset: int = 7, nights: int = 2, **fields) -> dict:
    check_in = dt.datetime.now(ZoneInfo("Europe/Lisbon")).date() + dt.timedelta(days=offset)
    return {"check_in": check_in.isoformat(),
            "check_out": (check_in + dt.timedelta(days=nights)).isoformat(), **fields}


def quote_body(**fields) -> dict:
    return {"hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
            **stay(), "rooms": 1, "occupancy": [{"adults": 2}], **fields}


def search_body(**fields):
    return {"hotel_codes": ["ACME-LIS"], **stay(), "rooms": 1, "occupancy": [{"adults": 2}],
            **fields}


def booking_body(total, reference="SBX-1", **fields) -> dict:
    body = {k: v for k, v in quote_body().items() if k != "occupancy"}
    return {**body, "partner_reference": reference, "total_amount": total, "currency": "EUR",
            "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                        "is_adult": True},
                       {"room_number": 1, "first_name": "Rui", "last_name": "Silva",
                        "is_adult": True}],
            "contact": {"first_name": "Ana", "email": "ana@example.com"}, **fields}


@pytest.fixture
def demo(db, catalog):
    db.run(seed_demo_ari, dt.datetime.now(dt.timezone.utc))


@pytest.fixture
def pull(issue, demo):
    return bearer(issue("pull").token)


def scenario(headers: dict, value: str) -> dict:
    return {**headers, HEADER: value}
