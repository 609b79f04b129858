"""The one hotel-code lookup (connectivity/mapping/hotel_code.py) and its two 404 messages:
selling answers a paused hotel exactly as an unmapped one; pushing takes a paused hotel."""

from __future__ import annotations

import pytest

from connectivity.auth.authenticate import Caller
from connectivity.mapping.hotel_code import find_hotel, mapped_hotel, selling_hotel
from connectivity.web.errors import NotFound


@pytest.fixture
def caller(db, catalog) -> Caller:
    with db.connection() as conn:
        partner_id = conn.execute("SELECT id FROM partners WHERE code = 'acme'").fetchone()["id"]
    return Caller(key_id="k", key_name="k", environment="sandbox", partner_id=partner_id,
                  partner_code="acme", partner_name="Acme", scopes=frozenset(),
                  requires_signature=False, rate_limit_per_minute=60, expires_at=None,
                  has_mapped_properties=True, count_mapped_properties=lambda: 2)


@pytest.fixture
def paused(app, caller):
    result = app.test_cli_runner().invoke(
        args=["distribution", "pause", "--partner", "acme", "--property", "LIS1"])
    assert result.exit_code == 0, result.output


def message(lookup, db, caller, code) -> str:
    with db.connection() as conn, pytest.raises(NotFound) as refused:
        lookup(conn, caller, code)
    return refused.value.message


def test_an_active_hotel_is_found_by_every_lookup(db, caller):
    with db.connection() as conn:
        found = [lookup(conn, caller, "ACME-LIS") for lookup in
                 (find_hotel, mapped_hotel, selling_hotel)]
    assert {h["property_id"] for h in found} == {found[0]["property_id"]}
    assert found[0]["hotel_code"] == "ACME-LIS" and found[0]["timezone"] == "Europe/Lisbon"


def test_a_paused_hotel_is_mapped_but_not_sold(db, caller, paused):
    with db.connection() as conn:
        assert find_hotel(conn, caller, "ACME-LIS")["distribution_active"] is False
        assert mapped_hotel(conn, caller, "ACME-LIS")["hotel_code"] == "ACME-LIS"
    assert message(selling_hotel, db, caller, "ACME-LIS") == \
        "hotel 'ACME-LIS' is not mapped and active for this partner"


def test_an_unmapped_code_has_one_message_per_kind_of_caller(db, caller):
    with db.connection() as conn:
        assert find_hotel(conn, caller, "NOPE") is None
    assert message(mapped_hotel, db, caller, "NOPE") == \
        "hotel 'NOPE' is not mapped for this partner"
    assert message(selling_hotel, db, caller, "NOPE") == \
        "hotel 'NOPE' is not mapped and active for this partner"
