"""A hotel's sellable grid held in memory, and search's cheapest-offer rule evaluated over the
grids of many hotels at once with numpy (the read model of `availability.search_model`).

Exactness: money is held as integers in millionths (SCALE), so every sum, every half-up
rounding to a currency's minor units is exact; a property whose stored values do not fit
(more than six decimals, or an amount above a billion) is marked `exact=False` and searched by
the reference statement instead. The rules are connectivity.pricing's (contract section 8),
restated over arrays; tests/availability/test_grid.py holds them to `evaluate_stay` with
hypothesis.

Layout: each property's offers (room type, rate plan) are rows and its days columns, from
`start`. Money is [offer, day, 4] (rate, single_rate, extra_adult_rate, extra_child_rate; NONE
where never sent), restrictions are packed into one int32 per (offer, day) and per (room type,
day) (FLAG_* bits; min and max stay 0 when not set), inventory is [room type, day]."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from functools import cache

import numpy as np

from connectivity.pricing import RoomOccupancy
from connectivity.pricing.money import convert_nights, round_money

SCALE_DIGITS = 6
NONE = -1          # a rate never sent
INEXACT = -2       # a stored value the integer layout cannot hold exactly (the loader's mark)
MAX_AMOUNT = 10**9  # per room and night, in the plan's currency: bounds every sum below 2^63
FLAG_CLOSED, FLAG_CTA, FLAG_CTD = 1, 2, 4
MIN_SHIFT, MAX_SHIFT, STAY_BITS = 3, 12, 511
NO_MAX = 10**4
NEVER = np.iinfo(np.int64).max
RATE, SINGLE, EXTRA_ADULT, EXTRA_CHILD = range(4)


def pack_restrictions(closed, min_stay, max_stay, cta, ctd):
    """One int32 per day from the five restriction columns (numpy arrays, 0 for not set)."""
    return (np.asarray(closed, np.int32) * FLAG_CLOSED | np.asarray(cta, np.int32) * FLAG_CTA
            | np.asarray(ctd, np.int32) * FLAG_CTD
            | np.asarray(min_stay, np.int32) << MIN_SHIFT
            | np.asarray(max_stay, np.int32) << MAX_SHIFT)


@dataclass(frozen=True)
class Offer:
    """A (room type, rate plan) the plan sells, with what judging a party needs of it."""
    room_type_id: int
    rate_plan_id: int
    currency: str
    minor_units: int
    base_adults: int
    max_adults: int
    max_children: int
    max_occupancy: int            # the plan's and the room type's, the smaller
    allowed_nationalities: frozenset[str] = frozenset()
    blocked_nationalities: frozenset[str] = frozenset()

    def admits(self, nationality: str | None) -> bool:
        # The rule of pricing.plan_rules.nationality_allowed, per offer.
        if not (self.allowed_nationalities or self.blocked_nationalities):
            return True
        if nationality is None:
            return False
        code = nationality.upper()
        return ((not self.allowed_nationalities or code in self.allowed_nationalities)
                and code not in self.blocked_nationalities)


@dataclass(frozen=True)
class Mapping:
    """One partner's mapping of the property: its code, whether it sells, the offers it maps."""
    mapping_id: int
    partner_id: int
    environment: str
    hotel_code: str
    active: bool
    rows: np.ndarray              # indices of the mapped offers
    currencies: frozenset[str] = frozenset()  # of every mapped plan, selling or not


@dataclass(frozen=True)
class PropertyGrid:
    property_id: int
    timezone: str
    currency: str
    max_child_age: int
    start: dt.date
    offers: tuple[Offer, ...]
    room_type_ids: tuple[int, ...]
    offer_room_type: np.ndarray   # [offer] -> row of the room type arrays
    money: np.ndarray             # [offer, day, 4] int64, millionths
    plan_flags: np.ndarray        # [offer, day] int32
    room_flags: np.ndarray        # [room type, day] int32
    available: np.ndarray         # [room type, day] int32
    exact: bool
    mappings: tuple[Mapping, ...] = ()
    # Per-offer vectors, derived once.
    statics: np.ndarray = field(init=False, repr=False)
    currencies: frozenset[str] = field(init=False, repr=False)
    unruled: np.ndarray = field(init=False, repr=False)  # offers without nationality rules
    has_rules: bool = field(init=False, repr=False)

    def __post_init__(self):
        statics = np.array([(o.base_adults, o.max_adults, o.max_children, o.max_occupancy,
                             10 ** (SCALE_DIGITS - o.minor_units),
                             not (o.allowed_nationalities or o.blocked_nationalities))
                            for o in self.offers], np.int64).reshape(len(self.offers), 6)
        object.__setattr__(self, "statics", statics)
        object.__setattr__(self, "currencies", frozenset(o.currency for o in self.offers))
        object.__setattr__(self, "unruled", statics[:, 5].astype(bool))
        object.__setattr__(self, "has_rules", not self.unruled.all())

    @property
    def days(self) -> int:
        return self.money.shape[1]

    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.money, self.plan_flags, self.room_flags,
                                      self.available, self.offer_room_type, self.statics))

    def covers(self, check_in: dt.date, check_out: dt.date) -> bool:
        """Whether the stay and its check-out day lie inside the grid's days."""
        return self.start <= check_in and (check_out - self.start).days < self.money.shape[1]


def rooms_of(occupancy: Sequence[RoomOccupancy]) -> tuple[tuple[int, int, int], ...]:
    """(adults, children, how many rooms) of each distinct room of a party."""
    return tuple((a, c, q) for (a, c), q in Counter((r.adults, r.children)
                                                     for r in occupancy).items())


def cheapest(grids: Sequence[tuple[PropertyGrid, np.ndarray]], check_in: dt.date,
             check_out: dt.date, occupancy: Sequence[RoomOccupancy],
             nationality: str | None,
             conversions: Sequence[Conversion | None] | None = None) -> list[int | None]:
    """For each (grid, offer rows) the lowest total of a sellable offer in millionths of the
    answer's currency, or None when none is sellable. Every grid must cover the stay and have
    `exact` set (the caller's checks); the party is already normalised with each grid's
    max_child_age. A grid whose offers are not all in the answer's currency comes with a
    Conversion: its offers' totals are then converted night by night (quote_in_currency's
    rule, in Decimal: only the offers otherwise sellable)."""
    n = (check_out - check_in).days
    counts = [len(rows) for _, rows in grids]
    if not sum(counts):
        return [None] * len(grids)
    money, plan_flags, room_flags, available, statics, admits = [], [], [], [], [], []
    room_rows, rooms_before = [], 0
    for grid, rows in grids:
        if not len(rows):
            continue
        d0 = (check_in - grid.start).days
        every = len(rows) == len(grid.offers)  # the usual mapping: basic slices, no gather
        pick = slice(None) if every else rows
        money.append(grid.money[pick, d0:d0 + n])
        plan_flags.append(grid.plan_flags[pick, d0:d0 + n + 1])
        # Room-type days once per room type; spread over the offers after concatenating.
        room_flags.append(grid.room_flags[:, d0:d0 + n + 1])
        available.append(grid.available[:, d0:d0 + n])
        room_rows.append(grid.offer_room_type[pick] + rooms_before)
        rooms_before += len(grid.room_type_ids)
        statics.append(grid.statics[pick])
        if nationality is not None and grid.has_rules:
            admits.append(np.array([grid.offers[r].admits(nationality)
                                    for r in (range(len(grid.offers)) if every else rows)]))
        else:
            admits.append(grid.unruled[pick])
    money = np.concatenate(money)
    room_rows = np.concatenate(room_rows)
    plan_flags = np.concatenate(plan_flags)
    room_flags = np.concatenate(room_flags)[room_rows]
    available = np.concatenate(available)[room_rows]
    flags = plan_flags | room_flags
    statics = np.concatenate(statics)
    base_adults, max_adults, max_children, max_occupancy, unit = statics[:, :5].T

    rooms = rooms_of(occupancy)
    fits = (np.concatenate(admits)
            & (min(a for a, _, _ in rooms) >= 1)
            & (max(a for a, _, _ in rooms) <= max_adults)
            & (max(c for _, c, _ in rooms) <= max_children)
            & (max(a + c for a, c, _ in rooms) <= max_occupancy))

    rate, single = money[:, :, RATE], money[:, :, SINGLE]
    extra_adult, extra_child = money[:, :, EXTRA_ADULT], money[:, :, EXTRA_CHILD]
    amount = np.zeros(rate.shape, np.int64)
    priced = np.ones(rate.shape, bool)
    for adults, children, qty in rooms:
        price = np.where(single >= 0, single, rate) if adults == 1 else rate
        priced &= price >= 0
        extra = np.maximum(adults - base_adults, 0)[:, None]
        priced &= (extra == 0) | (extra_adult >= 0)
        price = price + np.where(extra_adult >= 0, extra_adult, 0) * extra
        if children:
            priced &= extra_child >= 0
            price = price + extra_child * children
        amount += price * qty
    # Half-up to the plan's minor units, night by night (amounts are never negative).
    half = (unit // 2)[:, None]
    night = (amount + half) // unit[:, None] * unit[:, None]

    nights = flags[:, :n]
    arrival = flags[:, 0]
    # The ORed flags are right for closed, CTA and CTD only; each level's stay limits are read
    # apart and the stricter kept (pricing.restrictions.effective).
    plan_arrival, room_arrival = plan_flags[:, 0], room_flags[:, 0]
    min_stay = np.maximum((plan_arrival >> MIN_SHIFT) & STAY_BITS,
                          (room_arrival >> MIN_SHIFT) & STAY_BITS)
    plan_max = (plan_arrival >> MAX_SHIFT) & STAY_BITS
    room_max = (room_arrival >> MAX_SHIFT) & STAY_BITS
    max_stay = np.minimum(np.where(plan_max == 0, NO_MAX, plan_max),
                          np.where(room_max == 0, NO_MAX, room_max))
    sellable = (fits
                & (priced & (nights & FLAG_CLOSED == 0) & (available >= len(occupancy))).all(1)
                & (arrival & FLAG_CTA == 0) & (flags[:, n] & FLAG_CTD == 0)
                & (min_stay <= n) & (max_stay >= n))
    totals = np.where(sellable, night.sum(1), NEVER)
    if conversions is not None and any(conversions):
        _convert(totals, night, sellable, counts, grids, conversions)

    # Each hotel's minimum over its block of offers, in one call.
    sizes = np.array(counts)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))[sizes > 0]
    best = iter(np.minimum.reduceat(totals, starts).tolist())
    return [None if not size else (None if (b := next(best)) == NEVER else b)
            for size in counts]


@dataclass(frozen=True)
class Conversion:
    """Into which currency a grid's offers are answered, and the multiplier of each currency
    (FxTable.rate: the very figure quote_in_currency uses)."""
    currency: str
    rates: dict[str, Decimal]


def _convert(totals, night, sellable, counts, grids, conversions) -> None:
    at = 0
    for count, (grid, rows), conversion in zip(counts, grids, conversions):
        if conversion is not None:
            for i in np.flatnonzero(sellable[at:at + count]):
                offer = grid.offers[rows[i]]
                if offer.currency == conversion.currency:
                    continue
                rate = conversion.rates[offer.currency]
                # The night as round_money left it in the plan's currency (same digits, so the
                # same Decimal arithmetic as the reference's).
                unit = 10 ** (SCALE_DIGITS - offer.minor_units)
                amounts = [Decimal(int(a) // unit).scaleb(-offer.minor_units)
                           for a in night[at + i]]
                total = convert_nights(amounts, rate, conversion.currency).total
                totals[at + i] = int(total.scaleb(SCALE_DIGITS))
        at += count


def to_money(millionths: int, currency: str) -> Decimal:
    """An amount in millionths as the API shows it: the currency's minor units (exact: the
    figure is already a whole number of them)."""
    return Decimal(millionths).scaleb(-SCALE_DIGITS).quantize(_exponent(currency),
                                                              rounding=ROUND_HALF_UP)


@cache
def _exponent(currency: str) -> Decimal:
    # round_money's exponent, looked up once per currency rather than once per hotel.
    return round_money(Decimal(0), currency)
