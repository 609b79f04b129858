"""The pure rules: the service's penalty and what a payload disagrees on."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from connectivity.reservations.findings import (nightly_rates_findings, penalty_claim_differs,
                                                shortfall, unmapped_codes)
from connectivity.reservations.penalty import pushed_reservation_penalty

D = dt.date(2027, 3, 10)


@pytest.mark.parametrize("non_refundable, deadline, cancelled_on, expected", [
    (True, None, D, Decimal("99.99")),
    (True, D + dt.timedelta(days=5), D, Decimal("99.99")),
    (False, None, D, Decimal("0.00")),
    (False, D, D, Decimal("0.00")),
    (False, D, D + dt.timedelta(days=1), Decimal("99.99")),
    (False, D + dt.timedelta(days=1), D, Decimal("0.00")),
])
def test_penalty(non_refundable, deadline, cancelled_on, expected):
    assert pushed_reservation_penalty(net_amount=Decimal("99.99"), currency="EUR",
                                      non_refundable=non_refundable, deadline=deadline,
                                      cancelled_on=cancelled_on) == expected


def test_penalty_is_rounded_to_the_currency():
    assert pushed_reservation_penalty(net_amount=Decimal("1000.6"), currency="JPY",
                                      non_refundable=True, deadline=None,
                                      cancelled_on=D) == Decimal("1001")


@pytest.mark.parametrize("claim, currency, differs", [
    (None, None, False),
    (Decimal("10"), None, False),
    (Decimal("10.004"), "EUR", False),
    (Decimal("10.01"), None, True),
    (Decimal("10"), "USD", True),
])
def test_claim(claim, currency, differs):
    assert bool(penalty_claim_differs(Decimal("10.00"), "EUR", claim, currency)) is differs


def payload(**fields):
    base = {"check_in": D, "check_out": D + dt.timedelta(days=2), "net_amount": Decimal("90"),
            "net_currency": "EUR",
            "rooms": [{"room_type_code": "A", "quantity": 2, "nightly_rates": [
                {"date": D, "amount": Decimal("20")},
                {"date": D + dt.timedelta(days=1), "amount": Decimal("25")}]}]}
    base.update(fields)
    return base


def test_nightly_rates_times_quantity_against_net_amount():
    assert nightly_rates_findings(payload()) == []
    [mismatch] = nightly_rates_findings(payload(net_amount=Decimal("45")))
    assert mismatch.code == "nightly_rates_mismatch"
    assert mismatch.details["nightly_total"] == "90.00"


def test_sell_amount_is_preferred_when_sent():
    assert nightly_rates_findings(payload(sell_amount=Decimal("90"), sell_currency="USD",
                                          net_amount=Decimal("1"))) == []


def test_a_missing_night_leaves_the_total_unverified():
    body = payload()
    body["rooms"][0]["nightly_rates"].pop()
    [missing] = nightly_rates_findings(body)
    assert missing.code == "nightly_rates_missing"
    assert missing.details["missing"] == [{"room": 0, "room_type_code": "A",
                                           "dates": [(D + dt.timedelta(days=1)).isoformat()]}]


def test_unmapped_codes_and_shortfall():
    rooms = [{"room_type_code": "A", "rate_plan_code": "P"}, {"room_type_code": "B"}]
    found = unmapped_codes(rooms, {"A": 1}, {"Q"})
    assert [(f.code, f.details) for f in found] == [
        ("unmapped_room_type", {"room_type_codes": ["B"]}),
        ("unmapped_rate_plan", {"rate_plan_codes": ["P"]})]
    assert shortfall([{"room_type_id": 1, "date": D, "wanted": 2, "taken": 2}], {1: "A"}) == []
    [short] = shortfall([{"room_type_id": 1, "date": D, "wanted": 3, "taken": 1}], {1: "A"})
    assert short.details["nights"] == [{"room_type_code": "A", "date": D.isoformat(),
                                        "wanted": 3, "taken": 1, "short": 2}]
