"""The read model's evaluation (availability/grid.py) against the reference rules
(connectivity.pricing.evaluate_stay), on random grids: random rates (NONE included, up to six
decimals), restrictions at both levels, inventory, plans with occupancy and nationality rules and
currencies of 0, 2 and 3 minor units, random stays, parties and nationalities. The cheapest
sellable total, or none, must be the same to the minor unit.

And the compact layout (arena.py) against the dense arrays it stands for: held, rewritten in
place, moved to a wider index when a row's palette overflows a byte, compacted; what it gives
back (PropertyGrid.dense) must be the arrays it was given, with the updates applied, and the
other properties of its arena untouched."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pytest
from psycopg.rows import tuple_row
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from connectivity.availability import arena as arena_module
from connectivity.availability.grid import (
    NONE, SCALE_DIGITS, Arenas, Conversion, Mapping, Offer, PropertyGrid, cheapest, int8_rows,
    pack_restrictions, to_money)
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
# Whole cents (whole minor units of EUR and KWD, not of JPY) or whole units: the layout marks
# rows whose every price is whole in its currency and search skips rounding them.
whole_amounts = st.one_of(st.integers(0, 50000).map(lambda c: c * 10**(SCALE_DIGITS - 2)),
                          st.integers(0, 500).map(lambda u: u * 10**SCALE_DIGITS), st.just(NONE))
# Three decimals: whole in KWD, rounded in EUR and JPY.
_mills = st.integers(0, 5 * 10**6).map(lambda m: m * 10**(SCALE_DIGITS - 3))
mills = st.one_of(_mills, _mills, _mills, st.just(NONE))
stays = st.sampled_from([0] * 12 + [1, 2, 3, 4, 6])
rare = st.sampled_from([False] * 15 + [True])


@st.composite
def dense_grids(draw, days=DAYS):
    """The dense arrays of a random property: (offers, money, plan flags, room flags,
    available), each [row, day(, 4)]."""
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
    prices = draw(st.sampled_from([amounts, amounts, whole_amounts, mills]))
    return (offers, *days_of(draw, len(offers), room_types, days, prices))


def days_of(draw, offers: int, room_types: int, days: int, prices=amounts):
    """Random money, plan flags, room flags and available for so many rows and days."""
    shape = (offers, days)
    money = np.array(draw(st.lists(prices, min_size=shape[0] * days * 4,
                                   max_size=shape[0] * days * 4)), np.int64).reshape(*shape, 4)

    def flags(rows):
        size = rows * days
        bits = st.lists(rare, min_size=size, max_size=size)
        return pack_restrictions(
            *(np.array(draw(bits)).reshape(rows, days) if k in (0, 3, 4) else
              np.array(draw(st.lists(stays, min_size=size, max_size=size))).reshape(rows, days)
              for k in range(5)))
    available = np.array(draw(st.lists(st.sampled_from([3] * 12 + [0, 1, 2]),
                                       min_size=room_types * days,
                                       max_size=room_types * days))).reshape(room_types, days)
    return money, flags(offers), flags(room_types), available


def hold(arenas: Arenas, dense, property_id: int = 1, start: dt.date = START) -> PropertyGrid:
    offers, money, plan_flags, room_flags, available = dense
    room_types = len(room_flags)
    return arenas.hold(property_id, "UTC", offers[0].currency, 11, start, offers,
                       tuple(range(room_types)), np.array([o.room_type_id for o in offers]),
                       money, plan_flags, room_flags, available, True,
                       (Mapping(1, 1, "sandbox", "H", True, np.arange(len(offers))),))


@st.composite
def grids(draw):
    dense = draw(dense_grids())
    return hold(Arenas(DAYS), dense)


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
    money, plan_flags, room_flags, available = grid.dense()
    totals = []
    for row, offer in enumerate(grid.offers):
        rt = int(grid.offer_room_type[row])
        nights = [NightInput(
            date=check_in + dt.timedelta(days=j),
            available_rooms=int(available[rt, d0 + j]),
            restrictions=_merge(plan_flags, room_flags, row, rt, d0 + j),
            rates=NightRates(*(_decimal(money[row, d0 + j, k]) for k in range(4))))
            for j in range(n)]
        quote = evaluate_stay(
            check_in=check_in, check_out=check_out, rooms=len(occupancy), nights=nights,
            occupancy=occupancy, plan=RatePlanRules.build(
                base_adults=offer.base_adults, max_adults=offer.max_adults,
                max_children=offer.max_children, max_occupancy=99,
                allowed_nationalities=offer.allowed_nationalities,
                blocked_nationalities=offer.blocked_nationalities),
            room_type_max_occupancy=offer.max_occupancy, nationality=nationality,
            currency=offer.currency,
            departure_restrictions=_merge(plan_flags, room_flags, row, rt, d0 + n))
        if quote.sellable:
            totals.append(quote_in_currency(quote, multipliers[offer.currency], target).total)
    return min(totals, default=None)


def _merge(plan_flags, room_flags, row, rt, day):
    from connectivity.pricing import effective
    return effective(_restrictions(int(room_flags[rt, day])),
                     _restrictions(int(plan_flags[row, day])))


fx_rates = st.one_of(
    # an operator's rate (numeric(20, 10)) or an inverse one (16 places, FxTable.rate)
    st.integers(1, 5 * 10**10).map(lambda n: Decimal(n).scaleb(-10)),
    st.integers(1, 5 * 10**16).map(lambda n: Decimal(n).scaleb(-16)))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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
    event("rounding skipped" if grid.arena.whole_units[:len(grid.offers)].all()
          else "rounded")
    assert (None if fast is None else to_money(fast, target)) == expected


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dense=st.lists(dense_grids(), min_size=2, max_size=5), data=st.data())
def test_several_hotels_in_one_evaluation_keep_their_own_answers(dense, data):
    """Hotels evaluated together, from one arena, answer as each alone in its own (the
    per-hotel minimum of one array); also hotels loaded on different days (their windows
    start a day apart)."""
    starts = [START - dt.timedelta(days=data.draw(st.sampled_from([0, 0, 1]))) for _ in dense]
    shared = Arenas(DAYS)
    made = [hold(shared, d, property_id=i, start=s) for i, (d, s) in enumerate(zip(dense, starts))]
    occupancy = [RoomOccupancy(2)]
    check_in, check_out = START, START + dt.timedelta(days=2)
    together = cheapest([(g, np.arange(len(g.offers))) for g in made], check_in, check_out,
                        occupancy, None)
    alone = [cheapest([(g, np.arange(len(g.offers)))], check_in, check_out, occupancy, None)[0]
             for g in (hold(Arenas(DAYS), d, start=s) for d, s in zip(dense, starts))]
    assert together == alone


def _replaced(dense, first, update):
    """The dense arrays with the days from `first` replaced by `update`'s."""
    out = [a.copy() for a in dense]
    for whole, part in zip(out, update):
        whole[:, first:first + part.shape[1]] = part
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dense=st.lists(dense_grids(), min_size=2, max_size=3), data=st.data())
def test_updates_rewrite_days_in_place_or_move_and_leave_the_others_alone(dense, data):
    """Random day updates of random properties sharing arenas: each property gives back its
    arrays with its updates, whether written in place or moved (its palettes full), and
    compaction (forced here on any garbage) moves none of it."""
    arenas = Arenas(DAYS)
    held = [hold(arenas, d, property_id=i) for i, d in enumerate(dense)]
    expected = [list(d[1:]) for d in dense]
    compact_from = arena_module.COMPACT_MIN_ROWS
    arena_module.COMPACT_MIN_ROWS = 0
    try:
        for _ in range(data.draw(st.integers(1, 6))):
            i = data.draw(st.integers(0, len(held) - 1))
            first = data.draw(st.integers(0, DAYS - 1))
            width = data.draw(st.integers(1, DAYS - first))
            grid = held[i]
            update = days_of(data.draw, len(grid.offers), len(grid.room_type_ids), width)
            held[i] = arenas.patch(grid, first, *update, True)
            event("moved" if held[i].offer_row != grid.offer_row else "in place")
            expected[i] = _replaced(expected[i], first, update)
            before = [g.arena for g in held]
            held = arenas.compacted(held)
            if any(g.arena is not b for g, b in zip(held, before)):
                event("compacted")
    finally:
        arena_module.COMPACT_MIN_ROWS = compact_from
    for grid, (money, plan_flags, room_flags, available) in zip(held, expected):
        assert [a.tolist() for a in grid.dense()] == [
            money.tolist(), plan_flags.tolist(), room_flags.tolist(), available.tolist()]


WIDE = 300  # days: a row can then have more distinct values than one byte indexes


def _one_offer(rates: np.ndarray) -> tuple:
    """One offer priced `rates` (millionths) on every day, open, 3 rooms a day."""
    offers = (Offer(0, 100, "EUR", 2, 2, 3, 2, 4),)
    money = np.full((1, len(rates), 4), NONE, np.int64)
    money[0, :, 0] = rates
    zeros = np.zeros((1, len(rates)), np.int64)
    return offers, money, zeros, zeros, zeros + 3


@settings(max_examples=15, deadline=None)
@given(first=st.integers(0, WIDE - 8), nights=st.integers(1, 7))
def test_a_row_of_more_than_256_prices_is_held_with_two_byte_indexes(first, nights):
    """A property whose prices change every day of a long window: indexed by uint16, still
    exact; and a property held with one byte that such an update overflows moves to two."""
    distinct = (np.arange(WIDE) * 10_000 + 50 * 10**SCALE_DIGITS).astype(np.int64)
    arenas = Arenas(WIDE)
    wide = hold(arenas, _one_offer(distinct))
    assert wide.arena.dtype == np.uint16
    narrow = hold(arenas, _one_offer(np.full(WIDE, 80 * 10**SCALE_DIGITS)))
    assert narrow.arena.dtype == np.uint8
    update = _one_offer(distinct[::-1])[1:]
    moved = arenas.patch(narrow, 0, *update, True)
    assert moved.arena.dtype == np.uint16
    assert moved.dense()[0].tolist() == update[0].tolist()
    check_in = START + dt.timedelta(days=first)
    check_out = check_in + dt.timedelta(days=nights)
    party = [RoomOccupancy(2)]
    for grid in (wide, moved):
        [fast] = cheapest([(grid, np.arange(1))], check_in, check_out, party, None)
        assert to_money(fast, "EUR") == reference(grid, check_in, check_out, party, None,
                                                  "EUR", {"EUR": Decimal(1)})


def test_prices_finer_than_the_currency_are_rounded_night_by_night():
    """12.345 EUR a night: 12.35 each night, 24.70 for two (not 24.69): the rows whose prices
    are all whole minor units skip rounding, these must not."""
    grid = hold(Arenas(DAYS), _one_offer(np.full(DAYS, 12_345_000)))
    check_out = START + dt.timedelta(days=2)
    party = [RoomOccupancy(2)]
    [fast] = cheapest([(grid, np.arange(1))], START, check_out, party, None)
    assert to_money(fast, "EUR") == Decimal("24.70") == reference(
        grid, START, check_out, party, None, "EUR", {"EUR": Decimal(1)})


def test_day_rows_read_as_postgresql_sends_them(db):
    """grid.int8_rows reads array_send's bytes whole (offers.sql rate_days, search_model.sql
    model_days); anything but an int8 array without NULLs of the width asked is refused, never
    read as shifted values."""
    def sent(array_sql: str) -> bytes:
        with db.connection() as conn, conn.cursor(binary=True, row_factory=tuple_row) as cursor:
            return cursor.execute(f"SELECT array_send({array_sql})").fetchone()[0]
    rows = int8_rows(sent("ARRAY[[1, -2, 3], [4, 5, 9223372036854775807]]::bigint[]"), 3)
    assert rows.tolist() == [[1, -2, 3], [4, 5, 2**63 - 1]]
    assert int8_rows(None, 12).shape == (0, 12)
    with pytest.raises(ValueError):
        int8_rows(sent("ARRAY[[1, NULL, 3]]::bigint[]"), 3)
    with pytest.raises(ValueError):
        int8_rows(sent("ARRAY[[1, 2, 3]]::bigint[]"), 2)
