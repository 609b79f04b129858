"""A hotel's sellable grid held in memory, and search's cheapest-offer rule evaluated over the
grids of many hotels at once with numpy (the read model of `availability.search_model`).

Exactness: money is held as integers in millionths (SCALE), so every sum, every half-up
rounding to a currency's minor units is exact; a property whose stored values do not fit
(more than six decimals, or an amount above a billion) is marked `exact=False` and searched by
the reference statement instead. The rules are connectivity.pricing's (contract section 8),
restated over arrays; tests/availability/test_grid.py holds them to `evaluate_stay` with
hypothesis.

Layout: each property's offers (room type, rate plan) are rows and its days columns, from
`start`. What the rows hold is the dense layout's: money [offer, day, 4] (rate, single_rate,
extra_adult_rate, extra_child_rate; NONE where never sent), restrictions packed into one whole
number per (offer, day) and per (room type, day) (FLAG_* bits; min and max stay 0 when not
set), inventory [room type, day]; how it is stored, a palette per row and an index per day in
arrays shared by many properties, is arena.py's (`Arenas.hold` takes the dense arrays,
`PropertyGrid.dense` gives them back)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from functools import cache, lru_cache

import numpy as np

from connectivity.availability.arena import (WIDTHS, Arena, mapped_zeros, palettes,
                                              width_for)
from connectivity.pricing import RoomOccupancy
from connectivity.pricing.money import convert_nights, round_money

SCALE_DIGITS = 6
NONE = -1          # a rate never sent
INEXACT = -2       # a stored value the integer layout cannot hold exactly (the loader's mark)
MAX_AMOUNT = 10**9  # per room and night, in the plan's currency: bounds every sum below 2^63
FLAG_CLOSED, FLAG_CTA, FLAG_CTD = 1, 2, 4
MIN_SHIFT, MAX_SHIFT, STAY_BITS = 3, 12, 511
NEVER = np.iinfo(np.int64).max
RATE, SINGLE, EXTRA_ADULT, EXTRA_CHILD = range(4)


def pack_restrictions(closed, min_stay, max_stay, cta, ctd):
    """One int32 per day from the five restriction columns (numpy arrays, 0 for not set)."""
    return (np.asarray(closed, np.int32) * FLAG_CLOSED | np.asarray(cta, np.int32) * FLAG_CTA
            | np.asarray(ctd, np.int32) * FLAG_CTD
            | np.asarray(min_stay, np.int32) << MIN_SHIFT
            | np.asarray(max_stay, np.int32) << MAX_SHIFT)


def unpack_restrictions(flags: np.ndarray) -> np.ndarray:
    """pack_restrictions undone: [..., 5] of closed, min_stay, max_stay, CTA, CTD (0: not
    set), the columns of rates_grid's limits."""
    flags = np.asarray(flags, np.int64)
    return np.stack([flags & FLAG_CLOSED, (flags >> MIN_SHIFT) & STAY_BITS,
                     (flags >> MAX_SHIFT) & STAY_BITS, (flags & FLAG_CTA) >> 1,
                     (flags & FLAG_CTD) >> 2], axis=-1)


@dataclass(frozen=True, slots=True)
class Offer:
    """A (room type, rate plan) the plan sells, with what judging a party needs of it. Slots:
    the read model holds one per offer of every hotel (a __dict__ each was 300 bytes more)."""
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

    def __reduce__(self):
        # Pickled (the read model's snapshots, read_model/snapshots.py) as one tuple of its
        # fields, not a state list beside it: a restored model of 10,000 hotels holds 300,000
        # offers, and each temporary left among them a hole in the allocator's pools.
        return Offer, (self.room_type_id, self.rate_plan_id, self.currency, self.minor_units,
                       self.base_adults, self.max_adults, self.max_children,
                       self.max_occupancy, self.allowed_nationalities,
                       self.blocked_nationalities)


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
    # Its offers as POST /availability/rates lists them (read_model.RatesCatalogue); None
    # when it maps none.
    rates: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class PropertyGrid:
    """A held property: its catalogue, and where its days lie in an arena (arena.py)."""
    property_id: int
    timezone: str
    currency: str
    max_child_age: int
    start: dt.date
    offers: tuple[Offer, ...]
    room_type_ids: tuple[int, ...]
    offer_room_type: np.ndarray   # [offer] -> its room type's position in room_type_ids
    exact: bool
    mappings: tuple[Mapping, ...]
    arena: Arena
    offer_row: int                # the arena's row of offers[0]; the others follow
    room_row: int                 # likewise of room_type_ids[0]
    window_end: dt.date = field(init=False, repr=False)  # the first day past its days
    currencies: frozenset[str] = field(init=False, repr=False)
    has_rules: bool = field(init=False, repr=False)  # an offer with nationality rules

    def __post_init__(self):
        object.__setattr__(self, "window_end", self.start + dt.timedelta(days=self.arena.window))
        object.__setattr__(self, "currencies", frozenset(o.currency for o in self.offers))
        object.__setattr__(self, "has_rules", any(
            o.allowed_nationalities or o.blocked_nationalities for o in self.offers))

    @property
    def days(self) -> int:
        return self.arena.window

    def nbytes(self) -> int:
        """Bytes of its slot: day indexes, palettes with their room, per-offer vectors."""
        offers, rooms = len(self.offers), len(self.room_type_ids)
        arena = self.arena
        index = (2 * offers + rooms) * self.days * arena.dtype.itemsize
        palettes = sum(int(c.room[at:at + count].sum()) * c.k * c.palette.itemsize
                       for c, at, count in ((arena.money, self.offer_row, offers),
                                            (arena.plan, self.offer_row, offers),
                                            (arena.room, self.room_row, rooms)))
        per_row = 8 + 4 + 4  # palette base, size, room
        return (index + palettes + offers * (2 * per_row + 8 + 6 * 8 + 1)
                + rooms * per_row)

    def stay_days(self, local: np.ndarray, first: int, width: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The days first .. first + width - 1 of the offers `local` (indices into `offers`):
        (money [offer, day, 4], plan flags [offer, day], and of each offer's room type its
        flags and available rooms [offer, day]), as `dense` holds them."""
        arena = self.arena
        return stay_days_of(arena.money.mapped(), arena.plan.mapped(), arena.room.mapped(),
                            self.offer_room_type, self.offer_row, self.room_row, local, first,
                            width)

    def dense(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(money [offer, day, 4], plan flags [offer, day], room flags and available [room
        type, day]) as the dense layout held them: what the palettes stand for."""
        offers, rooms = len(self.offers), len(self.room_type_ids)
        room = self.arena.room.values(self.room_row, rooms)
        return (self.arena.money.values(self.offer_row, offers),
                self.arena.plan.values(self.offer_row, offers)[:, :, 0],
                room[:, :, 1], room[:, :, 0])



def stay_days_of(money, plan, room, offer_room_type: np.ndarray, offer_row: int, room_row: int,
                 local: np.ndarray, first: int, width: int
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """PropertyGrid.stay_days from the columns' arrays (arena.Column.mapped: palette,
    index, base), in the model's process or mapped in a web worker's (read_model/mapped.py)."""
    offer_rows = np.asarray(local, np.int64) + offer_row
    room_rows = offer_room_type.take(local) + room_row

    def values(column, rows):  # [k, day, row]
        palette, index, base = column
        return palette[:, _days(index, rows, first, width) + base.take(rows)]
    money_days = values(money, offer_rows).transpose(2, 1, 0)
    room_days = values(room, room_rows)
    return money_days, values(plan, offer_rows)[0].T, room_days[1].T, room_days[0].T


def _room(available, room_flags) -> np.ndarray:
    """The room column's values: available, flags, and available unless closed."""
    available, room_flags = np.asarray(available, np.int64), np.asarray(room_flags, np.int64)
    open_rooms = np.where(room_flags & FLAG_CLOSED, 0, available)
    return np.stack([available, room_flags, open_rooms], axis=-1)


def statics_of(offers: Sequence[Offer]) -> np.ndarray:
    """Per offer: base adults, max adults, max children, max occupancy, the plan's minor unit
    in millionths, and 1 when it has no nationality rule."""
    return np.array([(o.base_adults, o.max_adults, o.max_children, o.max_occupancy,
                      10 ** (SCALE_DIGITS - min(o.minor_units, SCALE_DIGITS)),
                      not (o.allowed_nationalities or o.blocked_nationalities))
                     for o in offers], np.int64).reshape(len(offers), 6)


def encoded(money: np.ndarray, plan_flags: np.ndarray, room_flags: np.ndarray,
            available: np.ndarray) -> tuple:
    """The dense layout's days as an arena holds them (a palette per row, arena.py): the most
    CPU of a hotel's load, and free of any model state, so a loader encodes outside the model's
    lock."""
    return (palettes(np.asarray(money, np.int64)),
            palettes(np.asarray(plan_flags, np.int64)[:, :, None]),
            palettes(_room(available, room_flags)))


class Arenas:
    """A read model's arenas, one per index width: where each property is held, moved and
    released (the model's lock held, its writes counted)."""

    def __init__(self, window: int):
        self.window = window
        self.by_width = [Arena(window, dtype) for dtype in WIDTHS]
        # [0]: odd while days are rewritten in place, moved on by each such write: a reader
        # that saw it change evaluates again (the seqlock of SearchModel._evaluate, and of a
        # web worker that maps the arrays: read_model/mapped.py). New slots, moves and
        # compaction write only rows no reader has yet, and need no count.
        self.counts = mapped_zeros(1, np.int64)

    @property
    def writes(self) -> int:
        return int(self.counts[0])

    def nbytes(self) -> int:
        return sum(a.nbytes() for a in self.by_width)

    def hold(self, property_id: int, timezone: str, currency: str, max_child_age: int,
             start: dt.date, offers: tuple[Offer, ...], room_type_ids: tuple[int, ...],
             offer_room_type: np.ndarray, money: np.ndarray, plan_flags: np.ndarray,
             room_flags: np.ndarray, available: np.ndarray, exact: bool,
             mappings: tuple[Mapping, ...] = ()) -> PropertyGrid:
        """A new slot from the dense layout's arrays (each [row, day(, 4)], `window` days)."""
        return self.hold_encoded(property_id, timezone, currency, max_child_age, start, offers,
                                 room_type_ids, offer_room_type,
                                 encoded(money, plan_flags, room_flags, available), exact,
                                 mappings)

    def hold_encoded(self, property_id: int, timezone: str, currency: str, max_child_age: int,
                     start: dt.date, offers: tuple[Offer, ...], room_type_ids: tuple[int, ...],
                     offer_room_type: np.ndarray, days: tuple, exact: bool,
                     mappings: tuple[Mapping, ...] = ()) -> PropertyGrid:
        """A new slot from the days as `encoded` gives them."""
        offer_room_type = np.asarray(offer_room_type, np.int64)
        arena = self.by_width[width_for(*(e[1] for e in days))]
        offer_row, room_row = arena.put(*days, offer_room_type, statics_of(offers))
        return PropertyGrid(property_id, timezone, currency, max_child_age, start, offers,
                            room_type_ids, offer_room_type, exact, mappings, arena, offer_row,
                            room_row)

    def patch(self, grid: PropertyGrid, first: int, money: np.ndarray, plan_flags: np.ndarray,
              room_flags: np.ndarray, available: np.ndarray, exact: bool) -> PropertyGrid:
        """The grid with its days from `first` (a day of its window) replaced by these
        [row, span(, 4)] arrays: in place when its palettes have room, else moved."""
        arena, offers, rooms = grid.arena, len(grid.offers), len(grid.room_type_ids)
        room = _room(available, room_flags)
        pending = [arena.money.prepare_patch(grid.offer_row, offers, first, money),
                   arena.plan.prepare_patch(grid.offer_row, offers, first,
                                            plan_flags[:, :, None]),
                   arena.room.prepare_patch(grid.room_row, rooms, first, room)]
        exact = grid.exact and exact
        if all(w is not None for w in pending):
            self.counts[0] += 1
            try:
                for write in pending:
                    write()
                arena.check_units(grid.offer_row, offers)
            finally:
                self.counts[0] += 1
            return grid if exact == grid.exact else replace(grid, exact=exact)
        whole = grid.dense()
        span = slice(first, first + money.shape[1])
        whole[0][:, span], whole[1][:, span] = money, plan_flags
        whole[2][:, span], whole[3][:, span] = room_flags, available
        self.release(grid)
        return self.hold(grid.property_id, grid.timezone, grid.currency, grid.max_child_age,
                         grid.start, grid.offers, grid.room_type_ids, grid.offer_room_type,
                         *whole, exact, grid.mappings)

    @staticmethod
    def release(grid: PropertyGrid) -> None:
        grid.arena.garbage_rows += len(grid.offers) + len(grid.room_type_ids)

    def compacted(self, grids: Sequence[PropertyGrid]) -> list[PropertyGrid]:
        """When an arena is a third garbage, its live grids copied into new arrays (the
        others are returned as they are); otherwise `grids` itself."""
        stale = [at for at, a in enumerate(self.by_width) if a.worth_compacting()]
        if not stale:
            return list(grids)
        fresh = {at: Arena(self.window, WIDTHS[at]) for at in stale}
        out = []
        for grid in grids:
            at = WIDTHS.index(grid.arena.dtype.type)
            if at not in fresh or grid.arena is not self.by_width[at]:
                out.append(grid)
                continue
            offer_row, room_row = fresh[at].copy_slot(
                grid.arena, grid.offer_row, len(grid.offers), grid.room_row,
                len(grid.room_type_ids))
            out.append(replace(grid, arena=fresh[at], offer_row=offer_row, room_row=room_row))
        for at, arena in fresh.items():
            self.by_width[at] = arena
        return out


def lookup(keys: np.ndarray, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where day rows go: (the index in `keys` of each wanted key found, which wanted keys were
    found). Rows of keys not held (a pair no plan sells, one the request did not ask for) are
    left out."""
    if not len(keys) or not len(wanted):
        return np.zeros(0, np.int64), np.zeros(len(wanted), bool)
    order = np.argsort(keys)
    at = np.searchsorted(keys, wanted, sorter=order).clip(0, len(keys) - 1)
    hit = keys[order[at]] == wanted
    return order[at[hit]], hit


# array_send of a two-dimensional int8 array without NULLs (offers.sql rate_days,
# search_model.sql model_days): dimensions, a flag and the element type, each dimension's size
# and lower bound, then every element as its length and value.
ARRAY_HEADER = 12 + 2 * 8
PLAN_WIDTH, ROOM_WIDTH = 12, 8  # values a row of rate_plan_days, of room_type_days
ELEMENT = np.dtype([("length", ">i4"), ("value", ">i8")])


def int8_rows(sent: bytes | None, width: int) -> np.ndarray:
    """The day rows a statement sent as one int8 array, as [rows, width] (none: array_agg's
    NULL). Refuses anything else: every element is 8 bytes, and the rows are `width` wide."""
    if not sent:
        return np.zeros((0, width), np.int64)
    elements = np.frombuffer(sent, ELEMENT, offset=ARRAY_HEADER)
    if (elements["length"] != 8).any() or elements.size % width:
        raise ValueError("day rows: not an int8 array without NULLs of rows of the width asked")
    return elements["value"].astype(np.int64).reshape(-1, width)


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
    rule, in Decimal: only the offers otherwise sellable). Grids of one arena are evaluated
    together (nearly always all of them)."""
    if conversions is None:
        conversions = [None] * len(grids)
    by_arena: dict[int, list[int]] = {}
    for at, (grid, _) in enumerate(grids):
        by_arena.setdefault(id(grid.arena), []).append(at)
    out: list[int | None] = [None] * len(grids)
    for positions in by_arena.values():
        some = [grids[p] for p in positions]
        found = cheapest_in_arena(some, columns_of(some), check_in, check_out, occupancy,
                                  nationality, [conversions[p] for p in positions])
        for p, best in zip(positions, found):
            out[p] = best
    return out


def columns_of(grids: Sequence[tuple[PropertyGrid, np.ndarray]]) -> np.ndarray:
    """The arena rows of each (grid, offer rows) and of their room types, one grid after the
    other: a [2, offers] array. int32: the read model keeps one per partner's mapping (a
    hotel has as many as the channels that sell it), and arena rows stay far below 2^31."""
    if not grids:
        return np.zeros((2, 0), np.int32)
    return np.concatenate([np.stack([local + grid.offer_row,
                                     grid.offer_room_type.take(local) + grid.room_row])
                           for grid, local in grids], axis=1).astype(np.int32)


def _days(index: np.ndarray, rows: np.ndarray, first, width: int) -> np.ndarray:
    """index[first:first + width, rows] ([day, row]), `first` one day for every row or one
    per row."""
    if isinstance(first, int):
        return index[first:first + width].take(rows, axis=1)  # contiguous runs: fast
    return index[first[None, :] + np.arange(width)[:, None], rows[None, :]]


def _stay_limits_admit(arrival: np.ndarray, n: int) -> np.ndarray:
    """One level's min and max stay (read on the arrival day; 0: not set) admit n nights.
    The effective limits are each level's, the stricter kept (pricing.restrictions.
    effective): both levels admitting is the same as the stricter one admitting."""
    most = (arrival >> MAX_SHIFT) & STAY_BITS
    return (((arrival >> MIN_SHIFT) & STAY_BITS) <= n) & ((most == 0) | (most >= n))


def cheapest_in_arena(grids: Sequence[tuple[PropertyGrid, np.ndarray]], columns: np.ndarray,
                      check_in: dt.date, check_out: dt.date,
                      occupancy: Sequence[RoomOccupancy], nationality: str | None,
                      conversions: Sequence[Conversion | None]) -> list[int | None]:
    """`cheapest` for grids of one arena, given their `columns_of`.

    Offers are ruled out step by step, each step reading only what the offers still in play
    need: the party (the offers' fixed limits), then the room type's days (inventory,
    closed, arrival, departure, stay limits), then the plan's days, and only then the prices
    of what is left. Closed, CTA and CTD at either level close; each level's stay limits are
    judged apart (`_stay_limits_admit`)."""
    # Arrays are [night, offer] (one column per offer of every hotel, hotel after hotel):
    # reducing over the nights is then elementwise work over long rows.
    n = (check_out - check_in).days
    counts = [len(local) for _, local in grids]
    rows, room_rows = columns
    if not len(rows):
        return [None] * len(grids)
    arena = grids[0][0].arena
    start = grids[0][0].start
    if all(g.start == start for g, _ in grids):  # loaded the same day: one slice of days
        first = (check_in - start).days
    else:
        first = np.repeat([(check_in - g.start).days for g, _ in grids], counts)

    base_adults, max_adults, max_children, max_occupancy, _, unruled = (
        arena.statics.take(rows, axis=1))
    admits = unruled.astype(bool)
    if nationality is not None:
        at = 0
        for (grid, local), count in zip(grids, counts):
            if grid.has_rules:
                admits[at:at + count] = [grid.offers[r].admits(nationality) for r in local]
            at += count
    rooms = rooms_of(occupancy)
    fits = (admits
            & (min(a for a, _, _ in rooms) >= 1)
            & (max(a for a, _, _ in rooms) <= max_adults)
            & (max(c for _, c, _ in rooms) <= max_children)
            & (max(a + c for a, c, _ in rooms) <= max_occupancy))

    # Room types: enough rooms every night (0 when closed), arrival and departure open.
    room = arena.room
    room_at = _days(room.index, room_rows, first, n + 1) + room.base.take(room_rows)
    room_arrival = room.palette[1].take(room_at[0])
    room_open = ((room.palette[2].take(room_at[:n]) >= len(occupancy)).all(0)
                 & (room_arrival & FLAG_CTA == 0)
                 & (room.palette[1].take(room_at[n]) & FLAG_CTD == 0)
                 & _stay_limits_admit(room_arrival, n))
    live = np.flatnonzero(fits & room_open)

    # Rate plans, for the offers still in play.
    plan = arena.plan
    live_rows = rows.take(live)
    live_first = first if isinstance(first, int) else first.take(live)
    plan_flags = plan.palette[0].take(_days(plan.index, live_rows, live_first, n + 1)
                                      + plan.base.take(live_rows))
    plan_arrival = plan_flags[0]
    plan_open = ((plan_flags[:n] & FLAG_CLOSED == 0).all(0)
                 & (plan_arrival & FLAG_CTA == 0) & (plan_flags[n] & FLAG_CTD == 0)
                 & _stay_limits_admit(plan_arrival, n))
    live, live_rows = live[plan_open], live_rows[plan_open]
    if not isinstance(first, int):
        live_first = live_first[plan_open]

    # Prices, of the offers still in play: a night without a price rules an offer out too.
    money = arena.money
    priced_at = _days(money.index, live_rows, live_first, n) + money.base.take(live_rows)
    live_base_adults = base_adults.take(live)
    rate = money.palette[RATE].take(priced_at)
    amount = priced = None
    single = extra_adult = extra_child = None  # gathered only when a room needs them
    for adults, children, qty in rooms:
        if adults == 1:
            if single is None:
                single = money.palette[SINGLE].take(priced_at)
            price = np.where(single >= 0, single, rate)
        else:
            price = rate
        priced = price >= 0 if priced is None else priced & (price >= 0)
        extra = np.maximum(adults - live_base_adults, 0)
        if extra.any():  # extra adults priced only where some offer has them
            if extra_adult is None:
                extra_adult = money.palette[EXTRA_ADULT].take(priced_at)
            priced &= (extra == 0) | (extra_adult >= 0)
            price = price + np.where(extra_adult >= 0, extra_adult, 0) * extra
        if children:
            if extra_child is None:
                extra_child = money.palette[EXTRA_CHILD].take(priced_at)
            priced &= extra_child >= 0
            price = price + extra_child * children
        price = price * qty if qty != 1 else price
        amount = price if amount is None else amount + price
    if arena.whole_units.take(live_rows).all():
        night = amount  # sums of whole minor units: rounding changes nothing
    else:
        # Half-up to the plan's minor units, night by night (amounts are never negative).
        unit = arena.statics[4].take(live_rows)
        night = (amount + unit // 2) // unit * unit
    sold = priced.all(0)
    totals = np.full(len(rows), NEVER, np.int64)
    totals[live[sold]] = night.sum(0)[sold]
    if any(conversions):
        nights = np.zeros((len(rows), n), np.int64)
        nights[live] = night.T
        sellable = np.zeros(len(rows), bool)
        sellable[live[sold]] = True
        _convert(totals, nights, sellable, counts, grids, conversions)

    # Each hotel's minimum over its block of offers, in one call.
    sizes = np.array(counts)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))[sizes > 0]
    best = np.minimum.reduceat(totals, starts).tolist()
    if len(best) < len(counts):  # a grid without offers (then none of it is sellable)
        best = iter(best)
        best = [next(best) if size else NEVER for size in counts]
    return [None if b == NEVER else b for b in best]


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


# A search turns up to 200 totals into Decimals; the same prices come back search after search,
# and a Decimal is immutable, so the ones made lately are kept (a tenth of the cost each).
@lru_cache(maxsize=1 << 16)
def to_money(millionths: int, currency: str) -> Decimal:
    """An amount in millionths as the API shows it: the currency's minor units (exact: the
    figure is already a whole number of them)."""
    places, unit = _places(currency)
    if unit and not millionths % unit:
        # The same Decimal, digits and exponent, as the quantize below gives; a third of
        # its cost, once per hotel of every search.
        return Decimal(millionths // unit).scaleb(-places)
    return Decimal(millionths).scaleb(-SCALE_DIGITS).quantize(_exponent(currency),
                                                              rounding=ROUND_HALF_UP)


@cache
def _places(currency: str) -> tuple[int, int]:
    places = -_exponent(currency).as_tuple().exponent
    return places, (10 ** (SCALE_DIGITS - places) if 0 <= places <= SCALE_DIGITS else 0)


@cache
def _exponent(currency: str) -> Decimal:
    # round_money's exponent, looked up once per currency rather than once per hotel.
    return round_money(Decimal(0), currency)
