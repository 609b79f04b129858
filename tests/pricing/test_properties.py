"""Hypothesis properties of the pricing rules: what must hold for every stay, not just ours."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from connectivity.pricing import (
    REASONS,
    FxTable,
    NightInput,
    NightRestrictions,
    booking_policy_penalty,
    convert,
    convert_nights,
    effective,
    evaluate_stay,
    hours_before_check_in,
    minor_units,
    normalise_occupancy,
    quote_in_currency,
    round_money,
)

from tests.pricing.strategies import CURRENCIES, money, policies, restrictions, stays

# No example database: these tests write nothing outside the test run.
PROPERTY = settings(database=None, deadline=None, max_examples=100)


@PROPERTY
@given(stays())
def test_total_is_the_sum_of_its_nights(stay):
    quote = evaluate_stay(**stay)
    amounts = [n.amount for n in quote.nights]
    if None in amounts:
        assert quote.total is None and "no_rate" in quote.reasons
    else:
        assert quote.total == sum(amounts)
        assert all(a == round_money(a, stay["currency"]) for a in amounts)


@PROPERTY
@given(stays())
def test_reasons_are_the_contracts_in_order_and_decide_sellability(stay):
    quote = evaluate_stay(**stay)
    assert set(quote.reasons) <= set(REASONS)
    assert list(quote.reasons) == sorted(set(quote.reasons), key=REASONS.index)
    assert quote.sellable == (quote.reasons == ())
    assert len(quote.nights) == (stay["check_out"] - stay["check_in"]).days


@PROPERTY
@given(stays(), st.data())
def test_a_stay_with_a_closed_night_is_never_sellable(stay, data):
    index = data.draw(st.integers(0, len(stay["nights"]) - 1))
    night = stay["nights"][index]
    stay["nights"][index] = NightInput(night.date, night.available_rooms,
                                       NightRestrictions(closed=True), night.rates)
    quote = evaluate_stay(**stay)
    assert not quote.sellable and "closed" in quote.reasons


@PROPERTY
@given(stays(complete_rates=True, open_nights=True), st.data())
def test_adding_an_adult_never_lowers_the_price(stay, data):
    room = data.draw(st.integers(0, stay["rooms"] - 1))
    before = evaluate_stay(**stay)
    more = list(stay["occupancy"])
    more[room] = more[room].with_extra_adult()
    after = evaluate_stay(**{**stay, "occupancy": tuple(more)})
    assume(before.sellable and after.sellable)
    assert after.total >= before.total
    assert all(a.amount >= b.amount for a, b in zip(after.nights, before.nights))


@PROPERTY
@given(stays(), st.decimals(min_value=Decimal("0.0001"), max_value=Decimal("500"), places=4),
       st.sampled_from(CURRENCIES))
def test_fx_then_summing_rounded_nights_equals_the_reported_total(stay, rate, target):
    quote = evaluate_stay(**stay)
    converted = quote_in_currency(quote, rate, target)
    amounts = [n.amount for n in converted.nights]
    if None in amounts:
        assert converted.total is None
        return
    assert converted.total == sum(amounts)
    if target != quote.currency:
        for original, shown in zip(quote.nights, converted.nights):
            assert shown.amount == round_money(convert(original.amount, rate), target)
            assert -shown.amount.as_tuple().exponent == minor_units(target)


@PROPERTY
@given(policies, st.lists(money(), min_size=1, max_size=10),
       st.decimals(min_value=-100, max_value=1000, places=3), st.sampled_from(CURRENCIES),
       st.decimals(min_value=Decimal("0.01"), max_value=Decimal("200"), places=4))
def test_penalty_is_between_zero_and_the_total(policy, nights, hours, currency, fx):
    nights = [round_money(n, currency) for n in nights]
    total = sum(nights)
    penalty = booking_policy_penalty(
        policy, nights, total, hours, currency,
        amount_converter=lambda amount: round_money(convert(amount, fx), currency))
    assert Decimal(0) <= penalty <= total
    assert penalty == round_money(penalty, currency)
    if policy.non_refundable:
        assert penalty == total


@PROPERTY
@given(policies, st.lists(money(), min_size=1, max_size=10),
       st.decimals(min_value=-100, max_value=500, places=2),
       st.decimals(min_value=0, max_value=100, places=2))
def test_penalty_never_falls_as_check_in_approaches(policy, nights, hours, closer_by):
    total = sum(nights)
    early = booking_policy_penalty(policy, nights, total, hours, "EUR")
    late = booking_policy_penalty(policy, nights, total, hours - closer_by, "EUR")
    assert late >= early


@PROPERTY
@given(st.datetimes(min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2035, 1, 1),
                    timezones=st.just(dt.timezone.utc)),
       st.integers(1, 10_000), st.dates(dt.date(2020, 1, 1), dt.date(2035, 1, 1)),
       st.sampled_from(["Europe/Lisbon", "America/New_York", "Asia/Tokyo", "UTC",
                        "Australia/Lord_Howe"]))
def test_hours_left_fall_exactly_as_time_passes(now, seconds, check_in, zone):
    before = hours_before_check_in(now, check_in, zone)
    after = hours_before_check_in(now + dt.timedelta(seconds=seconds), check_in, zone)
    # Equal up to Decimal's 28 significant digits (1/3600 has no finite expansion).
    assert abs((before - after) - Decimal(seconds) / Decimal(3600)) < Decimal("1e-20")


@PROPERTY
@given(restrictions, restrictions)
def test_effective_is_symmetric_and_never_looser_than_either_level(a, b):
    both = effective(a, b)
    assert both == effective(b, a)
    for level in (a, b):
        assert both.closed >= bool(level.closed)
        assert both.closed_to_arrival >= bool(level.closed_to_arrival)
        assert both.closed_to_departure >= bool(level.closed_to_departure)
        if level.min_stay is not None:
            assert both.min_stay >= level.min_stay
        if level.max_stay is not None:
            assert both.max_stay <= level.max_stay


@PROPERTY
@given(st.decimals(min_value=-10**9, max_value=10**9, allow_nan=False, allow_infinity=False,
                   places=6), st.sampled_from(CURRENCIES))
def test_rounding_is_idempotent_and_within_half_a_minor_unit(amount, currency):
    rounded = round_money(amount, currency)
    assert round_money(rounded, currency) == rounded
    assert abs(rounded - amount) <= Decimal(1).scaleb(-minor_units(currency)) / 2


@PROPERTY
@given(st.decimals(min_value=Decimal("0.0001"), max_value=Decimal("10000"), places=4))
def test_fx_inverse_is_the_direct_rate_inverted_to_16_places(rate):
    table = FxTable.from_rows([("EUR", "XYZ", rate)])
    inverse = table.rate("XYZ", "EUR")
    assert inverse.as_tuple().exponent == -16
    assert abs(inverse - Decimal(1) / rate) <= Decimal("0.5e-16")


@PROPERTY
@given(st.lists(st.none() | money(), min_size=1, max_size=10),
       st.decimals(min_value=Decimal("0.0001"), max_value=Decimal("500"), places=4),
       st.sampled_from(CURRENCIES))
def test_convert_nights_total_is_the_sum_of_converted_nights(amounts, rate, currency):
    result = convert_nights(amounts, rate, currency)
    if None in amounts:
        assert result.total is None
    else:
        assert result.total == sum(result.amounts)


@PROPERTY
@given(st.lists(st.fixed_dictionaries({"adults": st.integers(1, 6)},
                                      optional={"ages": st.lists(st.integers(0, 17),
                                                                 max_size=4)}),
                min_size=1, max_size=1) | st.just([]), st.integers(1, 5), st.integers(0, 17))
def test_normalising_keeps_every_guest_and_no_child_is_over_age(entries, rooms, max_age):
    assume(entries)
    raw = [{"adults": e["adults"], "children": len(e.get("ages", [])),
            "child_ages": e.get("ages", [])} for e in entries]
    result = normalise_occupancy(raw, rooms, max_age)
    assert len(result) == rooms
    for room in result:
        assert room.total == raw[0]["adults"] + raw[0]["children"]
        assert all(age is None or age <= max_age for age in room.children_ages)
