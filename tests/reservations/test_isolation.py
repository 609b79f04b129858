"""Reservations are the calling partner's and the key's environment's: another partner's
deliveries of the same reference neither see nor touch them."""

from __future__ import annotations

import json

import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.support.envelope import assert_envelope_success
from tests.support.signing import bearer
from tests.conftest import DEMO_CATALOG

from tests.reservations.conftest import available, post, reservation

GLOBEX = {"partners": [{"code": "globex", "name": "Globex", "mappings": [
    {"property": "LIS1", "hotel_code": "G-LIS", "active": True,
     "room_types": {"DBL": "G-DBL"}, "rate_plans": {"BAR": "G-BAR"}}]}]}


@pytest.fixture
def globex(db, catalog, issue):
    db.run(load_catalog, parse_catalog(json.dumps(GLOBEX)))
    return bearer(issue("push", partner="globex", signed=False).token)


def globex_reservation(reference="CM-1"):
    return reservation(reference, hotel_code="G-LIS", rooms=[
        {"room_type_code": "G-DBL", "rate_plan_code": "G-BAR", "quantity": 1, "adults": 2}],
        sell_amount=None, sell_currency=None, net_amount="0")


def test_same_reference_of_two_partners_is_two_reservations(client, push, globex, lisbon, db):
    ours = assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    theirs = assert_envelope_success(post(client, "/reservations", globex_reservation(), globex),
                                     201)
    assert theirs["idempotent_replay"] is False
    assert theirs["acknowledgement"] != ours["acknowledgement"]
    assert theirs["reservation"]["hotel_code"] == "G-LIS"
    assert available(db, "DBL") == [3, 3, 5, 5, 5, 5]  # inventory belongs to the property


def test_another_partners_cancel_is_an_orphan_of_its_own(client, push, globex, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    data = assert_envelope_success(post(client, "/reservations/CM-1/cancel", {}, globex))
    assert data["orphan"] is True and data["reservation"]["received"] is False
    assert data["reservation"]["guests"] is None  # nothing of acme's reservation shows
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]
    ours = assert_envelope_success(post(client, "/reservations", reservation(), push), 200)
    assert ours["reservation"]["status"] == "confirmed"


def test_another_partners_modify_does_not_touch_ours(client, push, globex, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    data = assert_envelope_success(post(client, "/reservations/CM-1/modify", {
        "check_in": reservation()["check_in"], "check_out": reservation()["check_out"],
        "rooms": [{"room_type_code": "G-DBL", "quantity": 3, "adults": 1}],
        "net_amount": 1, "net_currency": "EUR"}, globex))
    assert [i["code"] for i in data["reconciliation"]] == ["unknown_modification"]
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]


def test_a_production_key_does_not_see_sandbox_reservations(client, push, lisbon, db, issue,
                                                            catalog):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    data = json.loads(DEMO_CATALOG.read_text())
    prod = {"properties": [dict(data["properties"][1], code="OPO2", environment="production")],
            "partners": [{"code": "acme", "name": "Acme Travel", "mappings": [
                {"property": "OPO2", "hotel_code": "ACME-OPO2", "room_types": {"TWN": "P-TWN"},
                 "rate_plans": {"BAR": "P-BAR"}}]}]}
    db.run(load_catalog, parse_catalog(json.dumps(prod)))
    production = bearer(issue("push", environment="production", signed=False).token)
    data = assert_envelope_success(post(client, "/reservations/CM-1/cancel", {}, production))
    assert data["orphan"] is True
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]
