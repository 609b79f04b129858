"""Cancellation policies, hours before check-in, and the penalty."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import pytest

from connectivity.pricing import (
    CancellationPolicy,
    PenaltyTier,
    booking_policy_penalty,
    convert,
    hours_before_check_in,
    round_money,
)

UTC = dt.timezone.utc
LISBON = "Europe/Lisbon"


def policy(*tiers, non_refundable=False):
    return CancellationPolicy.from_dict({"non_refundable": non_refundable, "tiers": [
        {"within_hours": hours, "penalty": {"type": kind, "value": value}}
        for hours, kind, value in tiers]})


# --- hours before check-in ----------------------------------------------------------------


@pytest.mark.parametrize("now, check_in, zone, hours", [
    pytest.param(dt.datetime(2027, 5, 8, 0, 0, tzinfo=UTC), dt.date(2027, 5, 10), LISBON,
                 D(47), id="summer time: local midnight is 23:00 UTC"),
    pytest.param(dt.datetime(2027, 1, 8, 0, 0, tzinfo=UTC), dt.date(2027, 1, 10), LISBON,
                 D(48), id="winter time: Lisbon is UTC"),
    pytest.param(dt.datetime(2026, 3, 28, 0, 0, tzinfo=UTC), dt.date(2026, 3, 30), LISBON,
                 D(47), id="DST starts 29 March 2026: two local days are 47 hours"),
    pytest.param(dt.datetime(2026, 10, 23, 23, 0, tzinfo=UTC), dt.date(2026, 10, 26), LISBON,
                 D(49), id="DST ends 25 October 2026: two local days are 49 hours"),
    pytest.param(dt.datetime(2027, 5, 9, 22, 30, tzinfo=UTC), dt.date(2027, 5, 10), LISBON,
                 D("0.5"), id="half an hour left"),
    pytest.param(dt.datetime(2027, 5, 10, 9, 0, tzinfo=UTC), dt.date(2027, 5, 10), LISBON,
                 D(-10), id="after check-in time: negative"),
    pytest.param(dt.datetime(2027, 5, 8, 0, 0, tzinfo=UTC), dt.date(2027, 5, 10), "Asia/Tokyo",
                 D(39), id="Tokyo midnight is 15:00 UTC the day before"),
    pytest.param(dt.datetime(2027, 5, 8, 0, 0, 1, tzinfo=UTC), dt.date(2027, 5, 10), LISBON,
                 D(47) - D(1) / D(3600), id="exact to the second"),
])
def test_hours_before_check_in(now, check_in, zone, hours):
    assert hours_before_check_in(now, check_in, zone) == hours


def test_now_in_any_offset_is_the_same_instant():
    instant = dt.datetime(2026, 3, 28, 0, 0, tzinfo=UTC)
    tokyo = instant.astimezone(ZoneInfo("Asia/Tokyo"))
    # Same tzinfo object as the check-in midnight: naive subtraction would say 48.
    lisbon = instant.astimezone(ZoneInfo(LISBON))
    for now in (instant, tokyo, lisbon):
        assert hours_before_check_in(now, dt.date(2026, 3, 30), LISBON) == D(47)


def test_naive_now_is_refused():
    with pytest.raises(ValueError, match="aware"):
        hours_before_check_in(dt.datetime(2027, 5, 8), dt.date(2027, 5, 10), LISBON)


@pytest.mark.parametrize("now, applies", [
    pytest.param(dt.datetime(2026, 3, 27, 23, 0, tzinfo=UTC), True,
                 id="exactly 48 h before a DST-short day: the tier covers it"),
    pytest.param(dt.datetime(2026, 3, 27, 22, 59, 59, tzinfo=UTC), False,
                 id="one second more than 48 h: not covered"),
    pytest.param(dt.datetime(2026, 3, 28, 0, 0, tzinfo=UTC), True,
                 id="two local days before is only 47 h across DST"),
])
def test_tier_boundary_with_real_hours(now, applies):
    hours = hours_before_check_in(now, dt.date(2026, 3, 30), LISBON)
    penalty = booking_policy_penalty(policy((48, "nights", 1)), [D("100.00"), D("90.00")],
                                       D("190.00"), hours, "EUR")
    assert penalty == (D("100.00") if applies else D("0.00"))


# --- the penalty --------------------------------------------------------------------------

NIGHTS = [D("100.00"), D("120.00"), D("140.00")]
TOTAL = D("360.00")
TO_USD = lambda amount: round_money(convert(amount, D("1.0850")), "USD")  # noqa: E731


@pytest.mark.parametrize("the_policy, hours, penalty", [
    pytest.param(policy(non_refundable=True), 1000, "360.00", id="non-refundable is 100%"),
    pytest.param(policy((24, "nights", 1), non_refundable=True), 1000, "360.00",
                 id="non-refundable ignores tiers"),
    pytest.param(policy(), 0, "0.00", id="refundable without tiers"),
    pytest.param(policy((48, "nights", 1)), 48, "100.00", id="at the boundary hour: applies"),
    pytest.param(policy((48, "nights", 1)), D("48.0001"), "0.00", id="just outside: no tier"),
    pytest.param(policy((48, "nights", 1)), D("47.5"), "100.00", id="inside"),
    pytest.param(policy((0, "nights", 1)), 0, "100.00", id="0 h tier at check-in time"),
    pytest.param(policy((0, "nights", 1)), D("0.01"), "0.00", id="0 h tier before check-in"),
    pytest.param(policy((0, "nights", 1)), -5, "100.00", id="after check-in every tier covers"),
    pytest.param(policy((48, "nights", 2)), 10, "220.00", id="first two nights"),
    pytest.param(policy((48, "nights", 5)), 10, "360.00", id="more nights than the stay"),
    pytest.param(policy((48, "nights", 0.5)), 10, "50.00", id="half a night"),
    pytest.param(policy((48, "nights", 1.5)), 10, "160.00", id="a night and a half"),
    pytest.param(policy((48, "percent", 50)), 10, "180.00", id="percent of total"),
    pytest.param(policy((48, "percent", "33.333")), 10, "120.00", id="percent rounded"),
    pytest.param(policy((48, "percent", 150)), 10, "360.00", id="percent capped at total"),
    pytest.param(policy((48, "amount", 50)), 10, "50.00", id="amount, same currency"),
    pytest.param(policy((48, "amount", 1000)), 10, "360.00", id="amount capped at total"),
    pytest.param(policy((72, "percent", 10), (24, "nights", 1), (0, "percent", 100)), 100,
                 "0.00", id="tiers: outside all"),
    pytest.param(policy((72, "percent", 10), (24, "nights", 1), (0, "percent", 100)), 72,
                 "36.00", id="tiers: widest only"),
    pytest.param(policy((72, "percent", 10), (24, "nights", 1), (0, "percent", 100)), 24,
                 "100.00", id="tiers: two cover, larger wins"),
    pytest.param(policy((72, "percent", 10), (24, "nights", 1), (0, "percent", 100)), -1,
                 "360.00", id="tiers: after check-in"),
    pytest.param(policy((72, "percent", 50), (24, "nights", 1)), 10, "180.00",
                 id="largest, not narrowest"),
    pytest.param(policy((24, "nights", 1), (72, "percent", 50)), 10, "180.00",
                 id="tier order does not matter"),
])
def test_booking_policy_penalty(the_policy, hours, penalty):
    result = booking_policy_penalty(the_policy, NIGHTS, TOTAL, hours, "EUR")
    assert str(result) == penalty


def test_amount_tier_is_converted_like_prices():
    # The booking is in USD; the tier's 50 is in the plan's EUR: 50 * 1.085 = 54.25 USD.
    usd_nights = [D("108.50"), D("130.20"), D("151.90")]
    result = booking_policy_penalty(policy((48, "amount", 50)), usd_nights, D("390.60"), 1,
                                      "USD", amount_converter=TO_USD)
    assert result == D("54.25")


def test_amount_tier_converted_is_capped_at_total():
    result = booking_policy_penalty(policy((48, "amount", 500)), [D("100.00")], D("100.00"),
                                      1, "USD", amount_converter=TO_USD)
    assert result == D("100.00")


@pytest.mark.parametrize("currency, nights, total, the_policy, penalty", [
    ("JPY", [D("10001"), D("10001")], D("20002"), policy((48, "percent", "33.3")), "6661"),
    ("JPY", [D("10001")], D("10001"), policy((48, "nights", "0.5")), "5001"),
    ("KWD", [D("30.125"), D("30.125")], D("60.250"), policy((48, "percent", 10)), "6.025"),
    ("KWD", [D("30.125")], D("30.125"), policy(non_refundable=True), "30.125"),
])
def test_penalty_is_rounded_to_the_currency(currency, nights, total, the_policy, penalty):
    assert str(booking_policy_penalty(the_policy, nights, total, 0, currency)) == penalty


def test_negative_total_is_refused():
    with pytest.raises(ValueError):
        booking_policy_penalty(policy(), [], D("-1"), 0, "EUR")


# --- the policy's dict shape --------------------------------------------------------------


def test_policy_round_trips_the_contract_shape():
    data = {"non_refundable": False, "tiers": [
        {"within_hours": 48, "penalty": {"type": "nights", "value": 1}},
        {"within_hours": 24, "penalty": {"type": "percent", "value": 12.5}}]}
    parsed = CancellationPolicy.from_dict(data)
    assert parsed.tiers == (PenaltyTier(48, "nights", D(1)),
                            PenaltyTier(24, "percent", D("12.5")))
    assert CancellationPolicy.from_dict(parsed.to_dict()) == parsed


def test_policy_without_tiers():
    assert CancellationPolicy.from_dict({"non_refundable": True}) == CancellationPolicy(True)


@pytest.mark.parametrize("data", [
    [],
    {"non_refundable": "yes", "tiers": []},
    {"non_refundable": False, "tiers": [{"within_hours": 48}]},
    {"non_refundable": False, "tiers": [{"within_hours": -1,
                                          "penalty": {"type": "nights", "value": 1}}]},
    {"non_refundable": False, "tiers": [{"within_hours": 4.5,
                                          "penalty": {"type": "nights", "value": 1}}]},
    {"non_refundable": False, "tiers": [{"within_hours": 48,
                                          "penalty": {"type": "fixed", "value": 1}}]},
    {"non_refundable": False, "tiers": [{"within_hours": 48,
                                          "penalty": {"type": "percent", "value": -5}}]},
    {"non_refundable": False, "tiers": [{"within_hours": 48,
                                          "penalty": {"type": "percent", "value": "lots"}}]},
    {"non_refundable": False, "tiers": [{"within_hours": True,
                                          "penalty": {"type": "percent", "value": 5}}]},
])
def test_malformed_policies_are_refused(data):
    with pytest.raises(ValueError):
        CancellationPolicy.from_dict(data)
