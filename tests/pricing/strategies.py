"""Hypothesis strategies for pricing values: rates, restrictions, plans, stays and policies."""

from __future__ import annotations

import datetime as dt

from hypothesis import strategies as st

from connectivity.pricing import (
    CancellationPolicy,
    NightInput,
    NightRates,
    NightRestrictions,
    RatePlanRules,
    RoomOccupancy,
)

CHECK_IN = dt.date(2027, 5, 10)
CURRENCIES = ("EUR", "USD", "JPY", "KWD", "BHD", "GBP")


def money(max_value=2000, places=2):
    return st.decimals(min_value=0, max_value=max_value, places=places, allow_nan=False,
                       allow_infinity=False)


maybe_money = st.none() | money()


@st.composite
def night_rates(draw, complete=False):
    """Rates as ARI may leave them. `complete`: every field set, single_rate <= rate, which is
    what a hotel loads (a lone adult never pays more than two)."""
    if complete:
        rate = draw(money())
        single = draw(st.none() | money(max_value=rate))
        return NightRates(rate, single, draw(money(300)), draw(money(300)))
    return NightRates(draw(maybe_money), draw(maybe_money), draw(maybe_money), draw(maybe_money))


restrictions = st.builds(
    NightRestrictions,
    closed=st.none() | st.booleans(),
    min_stay=st.none() | st.integers(1, 10),
    max_stay=st.none() | st.integers(1, 10),
    closed_to_arrival=st.none() | st.booleans(),
    closed_to_departure=st.none() | st.booleans(),
)
rooms_occupancy = st.builds(RoomOccupancy, st.integers(1, 4),
                            st.lists(st.none() | st.integers(0, 11), max_size=3).map(tuple))
plans = st.builds(RatePlanRules, base_adults=st.integers(1, 3), max_adults=st.integers(1, 5),
                  max_children=st.integers(0, 3), max_occupancy=st.integers(1, 7),
                  allowed_nationalities=st.sampled_from([frozenset(), frozenset({"PT"})]),
                  blocked_nationalities=st.sampled_from([frozenset(), frozenset({"FR"})]))

# Roomy plans: occupancy and nationality rarely get in the way (for properties about price).
roomy_plans = st.builds(RatePlanRules, base_adults=st.integers(1, 3),
                        max_adults=st.integers(3, 6), max_children=st.just(5),
                        max_occupancy=st.just(20))


@st.composite
def stays(draw, complete_rates=False, open_nights=False):
    """Keyword arguments for evaluate_stay: any stay of 1-8 nights and 1-3 rooms.

    `complete_rates` and `open_nights` draw stays that are sellable but for occupancy: every
    rate set, nothing closed or restricted, a roomy plan without nationality rules.
    """
    length = draw(st.integers(1, 8))
    rooms = draw(st.integers(1, 3))
    nights = []
    for i in range(length):
        rates = draw(night_rates(complete=True)) if complete_rates else draw(
            st.none() | night_rates())
        nights.append(NightInput(
            CHECK_IN + dt.timedelta(days=i),
            draw(st.integers(rooms, 5)) if open_nights else draw(st.none() | st.integers(0, 5)),
            NightRestrictions() if open_nights else draw(restrictions), rates))
    return dict(check_in=CHECK_IN, check_out=CHECK_IN + dt.timedelta(days=length), rooms=rooms,
                nights=nights, occupancy=tuple(draw(rooms_occupancy) for _ in range(rooms)),
                plan=draw(roomy_plans if open_nights else plans),
                room_type_max_occupancy=draw(st.integers(6, 20) if open_nights
                                             else st.integers(1, 8)),
                nationality=draw(st.sampled_from([None, "PT", "FR", "DE"])),
                currency=draw(st.sampled_from(CURRENCIES)),
                departure_restrictions=None if open_nights else draw(st.none() | restrictions))


tiers = st.lists(st.fixed_dictionaries({
    "within_hours": st.integers(0, 400),
    "penalty": st.one_of(
        st.fixed_dictionaries({"type": st.just("nights"),
                               "value": st.integers(0, 12) | st.decimals(0, 12, places=1)}),
        st.fixed_dictionaries({"type": st.just("percent"), "value": st.decimals(0, 200,
                                                                                places=2)}),
        st.fixed_dictionaries({"type": st.just("amount"), "value": money(5000)})),
}), max_size=4)
policies = st.builds(lambda nr, ts: CancellationPolicy.from_dict(
    {"non_refundable": nr, "tiers": ts}), st.booleans(), tiers)
