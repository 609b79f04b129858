"""evaluate_stay: each reason alone, boundaries, ordering, totals and conversion."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D

import pytest

from connectivity.pricing import (
    REASONS,
    NightInput,
    NightRates,
    NightRestrictions,
    RatePlanRules,
    RoomOccupancy,
    evaluate_stay,
    quote_in_currency,
)

from tests.pricing.builders import CHECK_IN, PLAN, day, night, stay


def test_the_baseline_stay_is_sellable():
    quote = stay(3)
    assert quote.sellable and quote.reasons == ()
    assert [n.date for n in quote.nights] == [day(0), day(1), day(2)]
    assert [n.amount for n in quote.nights] == [D("100.00")] * 3
    assert quote.total == D("300.00") and quote.currency == "EUR"
    first = quote.nights[0]
    assert (first.available_rooms, first.closed, first.min_stay, first.max_stay,
            first.closed_to_arrival, first.closed_to_departure) == (5, False, None, None,
                                                                   False, False)


# Each reason triggered alone: the stay is otherwise the sellable baseline.
ALONE = [
    ("closed", dict(overrides={1: night(1, closed=True)})),
    ("sold_out", dict(overrides={2: night(2, available=0)})),
    ("sold_out", dict(rooms=2, overrides={1: night(1, available=1)})),
    ("sold_out", dict(overrides={1: night(1, available=None)})),
    ("min_stay", dict(overrides={0: night(0, min_stay=4)})),
    ("max_stay", dict(overrides={0: night(0, max_stay=2)})),
    ("closed_to_arrival", dict(overrides={0: night(0, closed_to_arrival=True)})),
    ("closed_to_departure", dict(departure=NightRestrictions(closed_to_departure=True))),
    ("occupancy", dict(occupancy=(RoomOccupancy(4),))),
    ("occupancy", dict(room_type_max_occupancy=1)),
    ("occupancy", dict(rooms=2, occupancy=(RoomOccupancy(2), RoomOccupancy(2, (1, 2, 3))))),
    ("nationality", dict(plan=RatePlanRules.build(base_adults=2, max_adults=3, max_children=2,
                                                  max_occupancy=4, allowed_nationalities=["PT"]),
                         nationality="FR")),
    ("nationality", dict(plan=RatePlanRules.build(base_adults=2, max_adults=3, max_children=2,
                                                  max_occupancy=4, blocked_nationalities=["FR"]),
                         nationality=None)),
    ("no_rate", dict(overrides={2: night(2, rates=None)})),
    ("no_rate", dict(overrides={1: night(1, rates=NightRates(single_rate=D("80")))})),
    ("no_rate", dict(occupancy=(RoomOccupancy(3),),
                     overrides={0: night(0, rates=NightRates(rate=D("100")))})),
]


@pytest.mark.parametrize("reason, changes", ALONE,
                         ids=[f"{r}-{i}" for i, (r, _) in enumerate(ALONE)])
def test_each_reason_alone(reason, changes):
    quote = stay(3, **changes)
    assert quote.reasons == (reason,)
    assert quote.sellable is False


def test_every_contract_reason_is_covered_by_a_solo_case():
    assert {reason for reason, _ in ALONE} == set(REASONS)


@pytest.mark.parametrize("changes", [
    pytest.param(dict(overrides={0: night(0, min_stay=3)}), id="min_stay exactly met"),
    pytest.param(dict(overrides={0: night(0, max_stay=3)}), id="max_stay exactly met"),
    pytest.param(dict(rooms=2, overrides={i: night(i, available=2) for i in range(3)}),
                 id="available equals rooms"),
    pytest.param(dict(overrides={1: night(1, closed_to_arrival=True),
                                 2: night(2, closed_to_departure=True)}),
                 id="CTA/CTD on nights that are neither arrival nor departure"),
    pytest.param(dict(overrides={1: night(1, min_stay=9, max_stay=1)}),
                 id="length-of-stay limits count only on the check-in date"),
    pytest.param(dict(departure=NightRestrictions(closed=True, closed_to_arrival=True,
                                                  min_stay=9)),
                 id="check-out date is not a night: closed there does not matter"),
    pytest.param(dict(plan=RatePlanRules.build(base_adults=2, max_adults=3, max_children=2,
                                               max_occupancy=4, allowed_nationalities=["PT"]),
                      nationality="pt"), id="allowed nationality"),
])
def test_boundaries_that_stay_sellable(changes):
    quote = stay(3, **changes)
    assert quote.sellable, quote.reasons


def test_reasons_are_deduplicated_and_in_contract_order():
    quote = stay(3, overrides={
        0: night(0, available=0, closed=True, rates=None, closed_to_arrival=True, min_stay=5),
        1: night(1, available=0, closed=True, rates=None),
        2: night(2, closed=True),
    }, departure=NightRestrictions(closed_to_departure=True), occupancy=(RoomOccupancy(9),),
        plan=RatePlanRules.build(base_adults=2, max_adults=3, max_children=2, max_occupancy=4,
                                 allowed_nationalities=["PT"]))
    assert quote.reasons == ("closed", "sold_out", "min_stay", "closed_to_arrival",
                             "closed_to_departure", "occupancy", "nationality", "no_rate")
    assert list(quote.reasons) == sorted(quote.reasons, key=REASONS.index)


def test_a_missing_night_is_no_inventory_and_no_rate():
    quote = evaluate_stay(check_in=CHECK_IN, check_out=day(2), rooms=1, nights=[night(0)],
                          occupancy=(RoomOccupancy(2),), plan=PLAN, room_type_max_occupancy=4,
                          nationality=None, currency="EUR")
    assert quote.reasons == ("sold_out", "no_rate")
    assert quote.nights[1] == quote.nights[1].__class__(day(1), None, 0, False, None, None,
                                                        False, False)
    assert quote.total is None


def test_nights_may_arrive_in_any_order():
    quote = evaluate_stay(check_in=CHECK_IN, check_out=day(3), rooms=1,
                          nights=[night(2), night(0), night(1)], occupancy=(RoomOccupancy(2),),
                          plan=PLAN, room_type_max_occupancy=4, nationality=None,
                          currency="EUR")
    assert [n.date for n in quote.nights] == [day(0), day(1), day(2)] and quote.sellable


def test_unsellable_stays_are_still_priced():
    quote = stay(2, overrides={0: night(0, closed=True, available=0)})
    assert not quote.sellable and quote.total == D("200.00")
    assert quote.nights[0].closed and quote.nights[0].available_rooms == 0


def test_night_amount_covers_all_rooms_and_total_is_the_sum_of_rounded_nights():
    rates = NightRates(rate=D("33.335"), single_rate=D("20.004"))
    quote = stay(2, rooms=2, occupancy=(RoomOccupancy(2), RoomOccupancy(1)),
                 overrides={i: night(i, rates=rates) for i in range(2)})
    # 33.335 + 20.004 = 53.339 -> 53.34 per night; the total adds the rounded nights.
    assert [n.amount for n in quote.nights] == [D("53.34"), D("53.34")]
    assert quote.total == D("106.68")


@pytest.mark.parametrize("currency, rate, night_amount", [
    ("JPY", D("12500.5"), D("12501")),
    ("KWD", D("30.0005"), D("30.001")),
    ("EUR", D("0.125"), D("0.13")),
])
def test_nights_are_rounded_half_up_to_the_plans_minor_units(currency, rate, night_amount):
    quote = stay(1, currency=currency, overrides={0: night(0, rates=NightRates(rate=rate))})
    assert quote.nights[0].amount == night_amount
    assert quote.total == night_amount
    assert quote.total.as_tuple().exponent == night_amount.as_tuple().exponent


@pytest.mark.parametrize("call, message", [
    (lambda: stay(0), "check_out"),
    (lambda: stay(2, rooms=0, occupancy=()), "rooms"),
    (lambda: stay(2, rooms=2, occupancy=(RoomOccupancy(2),)), "occupancy"),
    (lambda: stay(2, overrides={1: night(5)}), "not a night"),
    (lambda: stay(2, overrides={1: night(0)}), "twice"),
])
def test_caller_mistakes_are_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_check_out_date_in_the_nights_is_refused():
    with pytest.raises(ValueError, match="departure_restrictions"):
        evaluate_stay(check_in=CHECK_IN, check_out=day(1), rooms=1,
                      nights=[night(0), night(1)], occupancy=(RoomOccupancy(2),), plan=PLAN,
                      room_type_max_occupancy=4, nationality=None, currency="EUR")


def test_raw_restriction_flags_are_reported_as_booleans():
    quote = evaluate_stay(check_in=CHECK_IN, check_out=day(1), rooms=1,
                          nights=[NightInput(day(0), 3, NightRestrictions(min_stay=1),
                                             NightRates(rate=D("10")))],
                          occupancy=(RoomOccupancy(2),), plan=PLAN, room_type_max_occupancy=4,
                          nationality=None, currency="EUR")
    n = quote.nights[0]
    assert (n.closed, n.closed_to_arrival, n.closed_to_departure) == (False, False, False)


def test_quote_in_currency_converts_each_night_then_sums():
    rates = [NightRates(rate=D(v)) for v in ("100.00", "100.01", "100.02")]
    quote = stay(3, overrides={i: night(i, rates=r) for i, r in enumerate(rates)})
    usd = quote_in_currency(quote, D("1.0850"), "USD")
    # 108.5, 108.51085 -> 108.51, 108.5217 -> 108.52
    assert [n.amount for n in usd.nights] == [D("108.50"), D("108.51"), D("108.52")]
    assert usd.total == D("325.53") and usd.currency == "USD"
    assert (usd.sellable, usd.reasons) == (quote.sellable, quote.reasons)
    assert [n.available_rooms for n in usd.nights] == [n.available_rooms for n in quote.nights]


def test_quote_in_currency_to_jpy_keeps_missing_nights_missing():
    quote = stay(2, overrides={1: night(1, rates=None)})
    jpy = quote_in_currency(quote, D("162.345"), "JPY")
    assert [n.amount for n in jpy.nights] == [D("16235"), None]
    assert jpy.total is None


def test_quote_in_its_own_currency_is_unchanged():
    quote = stay(2)
    assert quote_in_currency(quote, D("1"), "eur") is quote


def test_stay_dates_cross_month_and_year_ends():
    check_in = dt.date(2027, 12, 30)
    nights = [NightInput(check_in + dt.timedelta(days=i), 1, NightRestrictions(),
                         NightRates(rate=D("10"))) for i in range(3)]
    quote = evaluate_stay(check_in=check_in, check_out=dt.date(2028, 1, 2), rooms=1,
                          nights=nights, occupancy=(RoomOccupancy(2),), plan=PLAN,
                          room_type_max_occupancy=4, nationality=None, currency="EUR")
    assert quote.sellable and quote.total == D("30.00")
