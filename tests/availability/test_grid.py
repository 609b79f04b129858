"""The read model's evaluation (availability/grid.py) against the reference rules
(connectivity.pricing.evaluate_stay), on random grids: random rates (NONE included, up to six
decimals), restrictions at both levels, inventory, plans with occupancy and nationality rules and
currencies of 0, 2 and 3 minor units, random stays, parties and nationalities. The cheapest
sellable total, or none, must be the same to the minor unit."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from connectivity.availability.grid import (
    NONE, SCALE_DIGITS, Conversion, Mapping, Offer, PropertyGrid, cheapest, pack_restrictions, to_money)
from connectivity.pricing import (NightInput, NightRates, NightRestrictions, RatePlanRules,
                                  RoomOccupancy, evaluate_stay, quote_in_currency)

START = dt.date(2030, 1, 1)
DAYS = 10
CURRENCIES = {"EUR": 2, "JPY": 0, "KWD": 3}
NATIONALITIES = (None, "PT", "RU", "FR")

# Mostly prices, mostly open, mostly rooms: a grid of random everything sells nothing, and then
# compares nothing but None.
amounts = st.one_of(st.integers(0, 5000 * 10**SCALE_DIGITS), st.integers(0, 5000 * 10**SCALE_DIGITS),
                    st.integers(0, 500).map(lambda u: u * 10**SCALE_DIGITS), st.just(NONE))
stays = st.sampled_from([0] * 12 + [1, 2, 3, 4, 6])
rare = st.sampled_from([False] * 15 + [True])


@st.composite
def grids(draw):
    room_types = draw(st.integers(1, 2))
    plans = [dict(currency=draw(st.sampled_from(sorted(CURRENCIES))),
                  base_adults=draw(st.integers(1, 2)),
                  max_adults=draw(st.sampled_from([1, 2, 3, 4, 4])),
                  max_children=draw(st.sampled_from([0, 1, 2, 2])),
                  max_occupancy=draw(st.sampled_from([2, 3, 4, 5, 5])),
                  allowed=frozenset(draw(st.sampled_from([()] * 4 + [("PT",), ("PT", "RU")]))),
                  blocked=frozenset(draw(st.sampled_from([(), (), ("RU",)]))))
             for _ in range(draw(st.integers(1, 2)))]
    room_occupancy = [draw(st.sampled_from([2, 3, 4, 5])) for _ in range(room_types)]
    offers = tuple(Offer(rt, 100 + p, plan["currency"], CURRENCIES[plan["currency"]],
                         plan["base_adults"], plan["max_adults"], plan["max_children"],
                         min(plan["max_occupancy"], room_occupancy[rt]), plan["allowed"],
                         plan["blocked"])
                   for rt in range(room_types) for p, plan in enumerate(plans))
    shape = (len(offers), DAYS)
    money = np.array(draw(st.lists(amounts, min_size=shape[0] * DAYS * 4,
                                   max_size=shape[0] * DAYS * 4)), np.int64).reshape(*shape, 4)

    def flags(rows):
        size = rows * DAYS
        bits = st.lists(rare, min_size=size, max_size=size)
        return pack_restrictions(
            *(np.array(draw(bits)).reshape(rows, DAYS) if k in (0, 3, 4) else
              np.array(draw(st.lists(stays, min_size=size, max_size=size))).reshape(rows, DAYS)
              for k in range(5)))
    available = np.array(draw(st.lists(st.sampled_from([3] * 12 + [0, 1, 2]), min_size=room_types * DAYS,
                                       max_size=room_types * DAYS))).reshape(room_types, DAYS)
    return PropertyGrid(1, "UTC", offers[0].currency, 11, START, offers,
                        tuple(range(room_types)), np.array([o.room_type_id for o in offers]),
                        money, flags(len(offers)), flags(room_types),
                        available.astype(np.int32), True,
                        (Mapping(1, 1, "sandbox", "H", True, np.arange(len(offers))),))


parties = st.lists(st.tuples(st.sampled_from([1, 2, 2, 3]), st.sampled_from([0, 0, 1, 2])),
                   min_size=1, max_size=3).map(lambda rooms: rooms[:1] if len(rooms) > 2 else rooms)


def _decimal(millionths: int) -> Decimal | None:
    return None if millionths == NONE else Decimal(int(millionths)).scaleb(-SCALE_DIGITS)


def _restrictions(packed: int) -> NightRestrictions:
    min_stay, max_stay = (packed >> 3) & 511, (packed >> 12) & 511
    return NightRestrictions(bool(packed & 1), min_stay or None, max_stay or None,
                             bool(packed & 2), bool(packed & 4))


def reference(grid: PropertyGrid, check_in, check_out, occupancy, nationality, target,
              multipliers):
    """The cheapest sellable total by evaluate_stay and quote_in_currency, offer by offer."""
    d0, n = (check_in - grid.start).days, (check_out - check_in).days
    totals = []
    for row, offer in enumerate(grid.offers):
        rt = int(grid.offer_room_type[row])
        nights = [NightInput(
            date=check_in + dt.timedelta(days=j),
            available_rooms=int(grid.available[rt, d0 + j]),
            restrictions=_merge(grid, row, rt, d0 + j),
            rates=NightRates(*(_decimal(grid.money[row, d0 + j, k]) for k in range(4))))
            for j in range(n)]
        quote = evaluate_stay(
            check_in=check_in, check_out=check_out, rooms=len(occupancy), nights=nights,
            occupancy=occupancy, plan=RatePlanRules.build(
                base_adults=offer.base_adults, max_adults=offer.max_adults,
                max_children=offer.max_children, max_occupancy=99,
                allowed_nationalities=offer.allowed_nationalities,
                blocked_nationalities=offer.blocked_nationalities),
            room_type_max_occupancy=offer.max_occupancy, nationality=nationality,
            currency=offer.currency, departure_restrictions=_merge(grid, row, rt, d0 + n))
        if quote.sellable:
            totals.append(quote_in_currency(quote, multipliers[offer.currency], target).total)
    return min(totals, default=None)


def _merge(grid, row, rt, day):
    from connectivity.pricing import effective
    return effective(_restrictions(int(grid.room_flags[rt, day])),
                     _restrictions(int(grid.plan_flags[row, day])))


fx_rates = st.one_of(
    # an operator's rate (numeric(20, 10)) or an inverse one (16 places, FxTable.rate)
    st.integers(1, 5 * 10**10).map(lambda n: Decimal(n).scaleb(-10)),
    st.integers(1, 5 * 10**16).map(lambda n: Decimal(n).scaleb(-16)))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(grid=grids(), first=st.integers(0, DAYS - 2), data=st.data(),
       party=parties, nationality=st.sampled_from(NATIONALITIES),
       target=st.sampled_from(sorted(CURRENCIES)), rates=st.lists(fx_rates, min_size=3,
                                                                   max_size=3))
def test_cheapest_equals_evaluate_stay(grid, first, data, party, nationality, target, rates):
    """Offers in the answer's currency as they are; in another, converted night by night with
    the multiplier FxTable gives (a random one here), as rates shows them."""
    nights = data.draw(st.integers(1, DAYS - 1 - first))
    check_in = START + dt.timedelta(days=first)
    check_out = check_in + dt.timedelta(days=nights)
    occupancy = [RoomOccupancy(a, (None,) * c) for a, c in party]
    multipliers = {c: (Decimal(1) if c == target else rate)
                   for c, rate in zip(sorted(CURRENCIES), rates)}
    conversion = (None if {o.currency for o in grid.offers} == {target}
                  else Conversion(target, multipliers))
    [fast] = cheapest([(grid, np.arange(len(grid.offers)))], check_in, check_out, occupancy,
                      nationality, [conversion])
    expected = reference(grid, check_in, check_out, occupancy, nationality, target,
                         multipliers)
    event("sellable" if expected is not None else "nothing sellable")
    event("converted" if conversion else "one currency")
    assert (None if fast is None else to_money(fast, target)) == expected


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(made=st.lists(grids(), min_size=2, max_size=5))
def test_several_hotels_in_one_evaluation_keep_their_own_answers(made):
    """Hotels evaluated together answer as each alone (the per-hotel minimum of one array)."""
    occupancy = [RoomOccupancy(2)]
    check_in, check_out = START, START + dt.timedelta(days=2)
    together = cheapest([(g, np.arange(len(g.offers))) for g in made], check_in, check_out,
                        occupancy, None)
    alone = [cheapest([(g, np.arange(len(g.offers)))], check_in, check_out, occupancy, None)[0]
             for g in made]
    assert together == alone
