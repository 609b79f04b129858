"""Two partners and both environments for the hostile-caller tests.

acme (the demo catalogue) owns real objects on LIS1: a booking, a pushed reservation and an ARI
batch. globex maps the same LIS1 under its own codes, and acme also has a production property,
so that every caller below passes every guard and only the data scoping can stop it."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

import psycopg
import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.support.envelope import assert_envelope_success
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

API = "/api/connectivity/v1"
START = dt.date.today() + dt.timedelta(days=5)

SECOND_PARTNER = json.dumps({
    "properties": [{"code": "PRD1", "name": "Prod Hotel", "environment": "production",
                    "country": "ES", "timezone": "Europe/Madrid", "currency": "EUR",
                    "max_child_age": 10,
                    "room_types": [{"code": "DBL", "name": "Double", "max_occupancy": 2}],
                    "rate_plans": []}],
    "partners": [
        {"code": "globex", "name": "Globex", "mappings": [
            {"property": "LIS1", "hotel_code": "GLX-LIS", "active": True,
             "room_types": {"DBL": "GLX-DBL"}, "rate_plans": {"BAR": "GLX-BAR"}}]},
        {"code": "acme", "name": "Acme Travel", "mappings": [
            {"property": "PRD1", "hotel_code": "ACME-MAD", "room_types": {"DBL": "P-DBL"}}]}]})


def day(offset: int) -> str:
    return (START + dt.timedelta(days=offset)).isoformat()


def bearer(key) -> dict:
    return {"Authorization": f"Bearer {key.token}"}


def occupancy() -> list[dict]:
    return [{"adults": 2}]


def quote_body(**fields) -> dict:
    return {"hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
            "check_in": day(0), "check_out": day(2), "rooms": 1, "occupancy": occupancy(),
            **fields}


def booking_body(reference: str = "ACME-BKG-1", **fields) -> dict:
    return {"partner_reference": reference, "hotel_code": "ACME-LIS",
            "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
            "check_in": day(0), "check_out": day(2), "rooms": 1,
            "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                        "is_adult": True, "nationality": "PT"},
                       {"room_number": 1, "first_name": "Rui", "last_name": "Silva",
                        "is_adult": True}],
            "contact": {"first_name": "Ana", "email": "ana@example.com"},
            "total_amount": "200.00", "currency": "EUR", **fields}


def reservation_body(reference: str = "CM-1", **fields) -> dict:
    return {"partner_reference": reference, "hotel_code": "ACME-LIS", "status": "confirmed",
            "check_in": day(0), "check_out": day(2),
            "rooms": [{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
                       "quantity": 1, "adults": 2,
                       "nightly_rates": [{"date": day(0), "amount": "100.00"},
                                         {"date": day(1), "amount": "100.00"}]}],
            "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                        "is_adult": True, "nationality": "PT"}],
            "contact": {"email": "ana@example.com"},
            "sell_amount": "200.00", "sell_currency": "EUR",
            "net_amount": "170.00", "net_currency": "EUR", **fields}


def modify_body(**fields) -> dict:
    return {"check_in": day(1), "check_out": day(3),
            "rooms": [{"room_type_code": "ACME-DBL", "quantity": 2, "adults": 1}],
            "net_amount": "300.00", "net_currency": "EUR", **fields}


def ari_body(hotel_code: str = "ACME-LIS", **fields) -> dict:
    return {"hotel_code": hotel_code,
            "items": [{"room_type_code": "ACME-DBL", "date": day(5), "availability": 7}],
            **fields}


def restrictions_body(hotel_code: str = "ACME-LIS", **fields) -> dict:
    return {"hotel_code": hotel_code,
            "items": [{"room_type_code": "ACME-DBL", "from_date": day(5), "to_date": day(6),
                       "min_stay": 2}], **fields}


def search_body(**fields) -> dict:
    return {"hotel_codes": ["ACME-LIS"], "check_in": day(0), "check_out": day(2),
            "rooms": 1, "occupancy": occupancy(), **fields}


def rates_body(**fields) -> dict:
    return {"hotel_code": "ACME-LIS", "check_in": day(0), "check_out": day(2),
            "rooms": 1, "occupancy": occupancy(), **fields}


@dataclass(frozen=True)
class Keys:
    """Headers of every caller: acme's sandbox keys (the owner), and the hostile ones."""
    acme_pull: dict
    acme_push: dict
    globex_pull: dict
    globex_push: dict
    prod_pull: dict
    prod_push: dict
    # lisboa-cm's: the channel manager that receives LIS1's bookings (hotel bookings).
    cm_push: dict

    def hostile(self) -> dict[str, tuple[dict, dict]]:
        """caller -> (pull headers, push headers)"""
        return {"globex": (self.globex_pull, self.globex_push),
                "acme-production": (self.prod_pull, self.prod_push)}


@pytest.fixture
def keys(db, issue, catalog) -> Keys:
    db.run(load_catalog, parse_catalog(SECOND_PARTNER))

    def key(preset, partner="acme", environment="sandbox"):
        return bearer(issue(preset, partner=partner, environment=environment, signed=False,
                            rate_limit=100000))
    return Keys(key("pull"), key("push"), key("pull", "globex"), key("push", "globex"),
                key("pull", environment="production"), key("push", environment="production"),
                key("push", "lisboa-cm"))


@dataclass(frozen=True)
class AcmeWorld:
    booking_reference: str
    reservation_reference: str
    batch_id: str


@pytest.fixture
def acme_world(client, db, keys) -> AcmeWorld:
    """acme's own real objects: a booking, a reservation and a queued ARI batch."""
    nights = stay_dates(START, 4)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    quoted = assert_envelope_success(client.post(f"{API}/bookings/quote", json=quote_body(),
                                                 headers=keys.acme_pull))
    assert_envelope_success(client.post(
        f"{API}/bookings", json=booking_body(quote_token=quoted["quote_token"]),
        headers=keys.acme_pull), 201)
    assert_envelope_success(client.post(f"{API}/reservations", json=reservation_body(),
                                        headers=keys.acme_push), 201)
    batch = assert_envelope_success(client.put(f"{API}/ari", json=ari_body(),
                                                headers=keys.acme_push), 202)
    return AcmeWorld("ACME-BKG-1", "CM-1", batch["batch_id"])


# Tables whose rows are the catalogue, inventory and partners' objects. api_keys is left out:
# its last_used_at moves on every authenticated request, whoever makes it.
def snapshot(database_url: str) -> dict[str, set[str]]:
    """Every row of every table but api_keys, as text, per table."""
    with psycopg.connect(database_url) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
            "AND tablename NOT IN ('api_keys', 'schema_migrations') ORDER BY tablename")]
        return {t: {r[0] for r in conn.execute(
            psycopg.sql.SQL("SELECT row_to_json(t)::text FROM {} t").format(
                psycopg.sql.Identifier(t)))} for t in tables}


def changes(before: dict[str, set[str]], after: dict[str, set[str]]):
    """(rows gone or changed, rows new) per table, only the tables that differ."""
    gone = {t: before[t] - after[t] for t in before if before[t] - after[t]}
    new = {t: after[t] - before[t] for t in after if after[t] - before[t]}
    return gone, new
