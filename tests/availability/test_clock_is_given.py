"""Search, rates and the offer reader quote and booking share judge "today" by the `now` they are
given (the route reads the clock once), never by a clock of their own."""

from __future__ import annotations

import datetime as dt

import pytest

from connectivity.auth.authenticate import Caller
from connectivity.availability.rates import rates
from connectivity.availability.search import search
from connectivity.web.errors import ValidationFailed

from tests.availability.conftest import day, stay


def _caller(db) -> Caller:
    with db.connection() as conn:
        partner_id = conn.execute("SELECT id FROM partners WHERE code = 'acme'").fetchone()["id"]
    return Caller(key_id="k", key_name="k", environment="sandbox", partner_id=partner_id,
                  partner_code="acme", partner_name="Acme", scopes=frozenset({"ari.read"}),
                  requires_signature=False, rate_limit_per_minute=60, expires_at=None,
                  has_mapped_properties=True, count_mapped_properties=lambda: 1)


def _request(**fields) -> dict:
    request = stay(**fields)
    return {**request, "check_in": dt.date.fromisoformat(request["check_in"]),
            "check_out": dt.date.fromisoformat(request["check_out"])}


def _noon_utc(date: dt.date) -> dt.datetime:
    return dt.datetime.combine(date, dt.time(12), tzinfo=dt.timezone.utc)


def test_rates_take_today_from_the_given_now(db, catalog, lisbon_ari):
    caller, request = _caller(db), {"hotel_code": "ACME-LIS", **_request()}
    assert rates(db, caller, request, _noon_utc(day(-1)))["hotel_code"] == "ACME-LIS"
    with pytest.raises(ValidationFailed) as refused:
        rates(db, caller, request, _noon_utc(day(2)))
    assert "check_in" in refused.value.details["fields"]


def test_search_takes_today_from_the_given_now(db, catalog, lisbon_ari):
    caller, request = _caller(db), {"hotel_codes": ["ACME-LIS"], **_request()}
    answer = search(db, caller, request, _noon_utc(day(-1)))
    assert [h["hotel_code"] for h in answer["hotels"]] == ["ACME-LIS"]
    with pytest.raises(ValidationFailed) as refused:
        search(db, caller, request, _noon_utc(day(2)))
    assert "check_in" in refused.value.details["fields"]
