"""POST /availability/rates' fast path: every offer x night of one property judged and priced at
once with numpy, from the day rows read as two compact values (offers.sql `rate_days`) rather
than ~600 dict rows, with the answers of `rates`' reference path (offers.evaluate_offer and
pricing.quote_in_currency per offer) to the byte.

Exactness: money is held as integers in millionths, so sums and the half-up rounding to a
currency's minor units are exact (as in availability/grid.py for search). What the integers
cannot hold makes `read_rate_days` or `evaluate` answer None and rates takes its reference path
for the whole request: a stored amount with more than six decimals or of a billion or more, a
currency with more than six minor units, a stay whose sums could pass 2^63. Conversion into
another currency is done night by night in Decimal by pricing.money.convert_nights, the very
rule of quote_in_currency; the plan-level rules (occupancy, nationality) are asked of
connectivity.pricing once per distinct plan. Only the nightly rules of contract section 8
(pricing.nightly, pricing.restrictions.effective, pricing.sellability.evaluate_stay) are
restated here over arrays; tests/availability/test_rates_grid.py holds them to the reference."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache

import numpy as np
from psycopg.rows import tuple_row

from connectivity.availability.grid import (PLAN_WIDTH, ROOM_WIDTH, int8_rows, lookup, rooms_of,
                                            unpack_restrictions)
from connectivity.availability.stay import fx_multiplier
from connectivity.pricing import (REASONS, RatePlanRules, RoomOccupancy, convert_nights,
                                  minor_units, nationality_allowed)
from connectivity.pricing.money import FxTable
from connectivity.store.queries import queries
from connectivity.web.fields import money_number

SCALE_DIGITS = 6
NEVER_SENT = -1    # offers.sql rate_days: a rate never sent
INEXACT = -2       # offers.sql rate_days: a stored amount the integers do not hold exactly
LIMIT = 2**62      # int64 holds every sum below it, with room for rounding's half unit
# Columns of the restriction arrays, as offers.sql sends them.
CLOSED, MIN_STAY, MAX_STAY, CTA, CTD = range(5)
BIT = {reason: 1 << i for i, reason in enumerate(REASONS)}
NO_RATE = BIT["no_rate"]
NO_RULES = RatePlanRules(0, 0, 0, 0)  # a plan without nationality rules (only those are read)


@dataclass(frozen=True)
class RateDays:
    """One request's days, offers as rows (in the catalogue's order), the stay's nights and its
    check-out day as columns. Restrictions: CLOSED .. CTD, 0 where a level set nothing."""
    money: np.ndarray          # [offer, night, 4] int64 millionths: rate, single, extra adult,
                               # extra child; NEVER_SENT where never sent
    plan_limits: np.ndarray    # [offer, day, 5] the rate-plan level
    room_limits: np.ndarray    # [offer, day, 5] the room-type level of the offer's room type
    available: np.ndarray      # [offer, night] 0 where never sent (as evaluate_stay counts it)


def read_rate_days(conn, property_id: int, offers: Sequence[dict], check_in: dt.date,
                   check_out: dt.date, occupancy: Sequence[RoomOccupancy]) -> RateDays | None:
    """The offers' days from check-in to check-out (which carries CTD), in the caller's
    transaction; None when a stored amount does not fit the integers. The prices `occupancy`
    cannot use (pricing.nightly reads single_rate for a lone adult only, extra_adult_rate for
    adults above the plan's base, extra_child_rate for children) come as never sent: the
    statement spends most of its time converting prices."""
    n = (check_out - check_in).days
    size = len(offers)
    money = np.full((size, n + 1, 4), NEVER_SENT, np.int64)
    plan_limits = np.zeros((size, n + 1, 5), np.int64)
    room_limits = np.zeros((size, n + 1, 5), np.int64)
    available = np.zeros((size, n + 1), np.int64)
    if offers:
        # Binary: the bytea arrives as the bytes PostgreSQL holds, with no hex to decode.
        cursor = conn.cursor(binary=True, row_factory=tuple_row)
        rows = cursor.execute(queries().availability.rate_days.sql, {
            "property_id": property_id, "first_date": check_in, "last_date": check_out,
            "room_type_ids": sorted({o["room_type_id"] for o in offers}),
            "rate_plan_ids": sorted({o["rate_plan_id"] for o in offers}),
            **usable_prices(offers, occupancy)}).fetchall()
        days = dict(rows)
        plan = int8_rows(days.get("plan"), PLAN_WIDTH)
        room = int8_rows(days.get("room"), ROOM_WIDTH)
        if (plan[:, 3:7] == INEXACT).any():
            return None
        # Rows of pairs the request does not ask for (the ids' cross product reads a few) are
        # not offers: dropped.
        keys = np.array([o["room_type_id"] << 32 | o["rate_plan_id"] for o in offers], np.int64)
        if len(np.unique(keys)) != len(keys):
            return None  # a pair offered twice (the catalogue's keys forbid it): not held here
        at, hit = lookup(keys, plan[:, 0] << 32 | plan[:, 1])
        money[at, plan[hit, 2]] = plan[hit, 3:7]
        plan_limits[at, plan[hit, 2]] = plan[hit, 7:12]
        # A room type's day goes to each of its offers.
        offer_room = np.array([o["room_type_id"] for o in offers], np.int64)
        room_ids = np.unique(offer_room)
        per_room_limits = np.zeros((len(room_ids), n + 1, 5), np.int64)
        per_room_available = np.zeros((len(room_ids), n + 1), np.int64)
        at, hit = lookup(room_ids, room[:, 0])
        per_room_available[at, room[hit, 1]] = room[hit, 2]
        per_room_limits[at, room[hit, 1]] = room[hit, 3:8]
        spread = np.searchsorted(room_ids, offer_room)
        room_limits, available = per_room_limits[spread], per_room_available[spread]
    return RateDays(money[:, :n], plan_limits, room_limits, available[:, :n])


def held_days(money: np.ndarray, plan_flags: np.ndarray, room_flags: np.ndarray,
              available: np.ndarray) -> RateDays:
    """RateDays from the read model's days of the stay and its check-out day
    (read_model.SearchModel.stay_days; every price, as the model holds them all)."""
    n = money.shape[1] - 1
    return RateDays(money[:, :n], unpack_restrictions(plan_flags),
                    unpack_restrictions(room_flags), available[:, :n])


def usable_prices(offers: Sequence[dict], occupancy: Sequence[RoomOccupancy]) -> dict:
    """Which of the optional prices pricing.nightly can read for this party and these offers
    (offers.sql rate_days sends the others as never sent)."""
    return {"singles": any(r.adults == 1 for r in occupancy),
            "extra_adults": max(r.adults for r in occupancy) > min(o["base_adults"]
                                                                   for o in offers),
            "children": any(r.children for r in occupancy)}


def holds(offers: Sequence[dict], days: RateDays, occupancy: Sequence[RoomOccupancy]) -> bool:
    """Whether `evaluate` prices the request exactly: every plan's currency has at most six
    minor units and no sum can pass the int64 range."""
    if any(minor_units(o["currency"]) > SCALE_DIGITS for o in offers):
        return False
    # Every room's price is at most (1 + adults + children) stored amounts: bound the total.
    largest = int(days.money.max(initial=0))
    nights = max(days.money.shape[1], 1)
    return largest * sum(1 + r.adults + r.children for r in occupancy) * nights < LIMIT


def evaluate(offers: Sequence[dict], days: RateDays, *, stay_dates: Sequence[dt.date],
             occupancy: Sequence[RoomOccupancy], nationality: str | None, target: str,
             fx: FxTable) -> list[dict]:
    """Per offer, in order, {sellable, reasons, total_amount, nights} as rates answers them
    (nights as NightPrice dicts), in `target`; only where `holds` says so. Amounts come as the
    JSON numbers Money writes (web.fields.money_number), which the answer's encoder writes as
    they are: the reference path's Decimals give the same text. Raises CurrencyNotSupported
    (the API's 422) at the first offer, in order, that no FX rate converts, as the reference
    does."""
    n, rooms = len(stay_dates), len(occupancy)
    money = days.money
    minors = [minor_units(o["currency"]) for o in offers]

    # The night's amount for all rooms (pricing.nightly): NEVER_SENT where a room cannot be
    # priced.
    base_adults = np.array([o["base_adults"] for o in offers], np.int64)[:, None]
    rate, single = money[:, :, 0], money[:, :, 1]
    extra_adult, extra_child = money[:, :, 2], money[:, :, 3]
    amount = np.zeros(rate.shape, np.int64)
    priced = np.ones(rate.shape, bool)
    for adults, children, count in rooms_of(occupancy):
        price = np.where(single >= 0, single, rate) if adults == 1 else rate
        priced &= price >= 0
        extra = np.maximum(adults - base_adults, 0)
        priced &= (extra == 0) | (extra_adult >= 0)
        price = price + np.where(extra > 0, extra_adult, 0) * extra
        if children:
            priced &= extra_child >= 0
            price = price + extra_child * children
        amount += price * count
    # Half-up to each plan's minor units (amounts are never negative), as round_money.
    unit = np.array([10 ** (SCALE_DIGITS - m) for m in minors], np.int64)[:, None]
    minor_amount = (amount + unit // 2) // unit

    # Effective restrictions (pricing.restrictions.effective): flags if either level sets
    # them, the larger min_stay and the smaller max_stay of those set (0: not set).
    plan, room = days.plan_limits, days.room_limits
    either = (plan | room).astype(bool)  # its stay columns are not used
    closed, cta, ctd = either[:, :, CLOSED], either[:, :, CTA], either[:, :, CTD]
    min_stay = np.maximum(plan[:, :, MIN_STAY], room[:, :, MIN_STAY])
    plan_max, room_max = plan[:, :, MAX_STAY], room[:, :, MAX_STAY]
    max_stay = np.where(plan_max == 0, room_max,
                        np.where(room_max == 0, plan_max, np.minimum(plan_max, room_max)))

    # Reasons (pricing.sellability.evaluate_stay), one bit each.
    night_closed = closed[:, :n]
    arrival_min, arrival_max = min_stay[:, 0], max_stay[:, 0]
    found = (np.where(~priced.all(1), BIT["no_rate"], 0)
             | np.where(night_closed.any(1), BIT["closed"], 0)
             | np.where((days.available < rooms).any(1), BIT["sold_out"], 0)
             | np.where((arrival_min > 0) & (n < arrival_min), BIT["min_stay"], 0)
             | np.where((arrival_max > 0) & (n > arrival_max), BIT["max_stay"], 0)
             | np.where(cta[:, 0], BIT["closed_to_arrival"], 0)
             | np.where(ctd[:, n], BIT["closed_to_departure"], 0)
             | _plan_rules(offers, occupancy, nationality)).tolist()

    # Each offer's night amounts as the answer writes them, then every night of every offer
    # made in one pass (one comprehension over the whole grid, not one per offer).
    amounts, totals = [], []
    for offer, bits, minor, row, row_priced in zip(offers, found, minors, minor_amount.tolist(),
                                                   priced.tolist()):
        nights, total = _priced_nights(row, row_priced if bits & NO_RATE else None, minor,
                                       offer["currency"], target, fx)
        amounts.extend(nights)
        totals.append(total)
    grid = [{"date": d, "amount": a, "available_rooms": av, "closed": c, "min_stay": lo or None,
             "max_stay": hi or None, "closed_to_arrival": ca, "closed_to_departure": cd}
            for d, a, av, c, lo, hi, ca, cd in zip(
                list(stay_dates) * len(offers), amounts, days.available.ravel().tolist(),
                night_closed.ravel().tolist(), min_stay[:, :n].ravel().tolist(),
                max_stay[:, :n].ravel().tolist(), cta[:, :n].ravel().tolist(),
                ctd[:, :n].ravel().tolist())]
    return [{"sellable": not bits, "reasons": list(_reasons(bits)), "total_amount": total,
             "nights": grid[i * n:(i + 1) * n]}
            for i, (bits, total) in enumerate(zip(found, totals))]


def _priced_nights(row: list[int], row_priced: list[bool] | None, minor: int, currency: str,
                   target: str, fx: FxTable) -> tuple[list, int | float | None]:
    """One offer's nights and total as the answer's JSON numbers, from its amounts in whole
    minor units; `row_priced` given when some night has no price (its night None, no total).
    In another currency: converted night by night as quote_in_currency does."""
    numbers = _numbers(minor)
    if currency.upper() == target.upper():
        if row_priced is not None:
            return [numbers[a] if p else None for a, p in zip(row, row_priced)], None
        return [numbers[a] for a in row], numbers[sum(row)]
    decimal = numbers.decimal
    converted = convert_nights([decimal(a) for a in row] if row_priced is None else
                               [decimal(a) if p else None for a, p in zip(row, row_priced)],
                               fx_multiplier(fx, currency, target), target)
    return ([None if a is None else money_number(a) for a in converted.amounts],
            None if converted.total is None else money_number(converted.total))


@cache
def _reasons(bits: int) -> tuple[str, ...]:
    return tuple(r for r in REASONS if bits & BIT[r])


class _Numbers(dict):
    """An amount's JSON number (web.fields.money_number, what Money writes) by its whole minor
    units, made once per process: a hotel's prices and stays' totals repeat (a few hundred
    price points), and otherwise the encoder would hand every night's Decimal back to Python
    (ready_body's hook). Numbers are immutable, so answers may share them."""

    LIMIT = 20_000  # entries per currency exponent: bounded whatever the prices

    def __init__(self, minor: int):
        super().__init__()
        self.quantum = Decimal(1).scaleb(-minor)

    def decimal(self, units: int) -> Decimal:
        """As round_money leaves it (exponent -minor): exact, the product of two Decimals."""
        return Decimal(units) * self.quantum

    def __missing__(self, units: int) -> int | float:
        if len(self) >= self.LIMIT:
            self.clear()
        value = self[units] = money_number(self.decimal(units))
        return value


@cache
def _numbers(minor: int) -> _Numbers:
    return _Numbers(minor)


def _plan_rules(offers: Sequence[dict], occupancy: Sequence[RoomOccupancy],
                nationality: str | None) -> np.ndarray:
    """The occupancy and nationality bits of every offer. Occupancy: every room within the
    plan's limits and the room type's capacity, pricing.plan_rules.occupancy_fits over arrays
    (its one-adult minimum is the request's, the same for every offer). Nationality: asked of
    pricing.plan_rules.nationality_allowed once per distinct rules of the request's offers."""
    limits = np.array([(o["max_adults"], o["max_children"], o["max_occupancy"],
                        o["room_type_max_occupancy"]) for o in offers], np.int64).reshape(-1, 4)
    adults = max(r.adults for r in occupancy)
    children = max(r.children for r in occupancy)
    guests = max(r.total for r in occupancy)
    fit = ((min(r.adults for r in occupancy) >= 1) & (adults <= limits[:, 0])
           & (children <= limits[:, 1]) & (guests <= limits[:, 2]) & (guests <= limits[:, 3]))
    bits = np.where(fit, 0, BIT["occupancy"])
    unruled = nationality_allowed(NO_RULES, nationality)
    admits: dict[tuple, bool] = {}
    for i, offer in enumerate(offers):
        allowed, blocked = offer["allowed_nationalities"], offer["blocked_nationalities"]
        if allowed or blocked:
            rules = (tuple(allowed), tuple(blocked))
            admit = admits.get(rules)
            if admit is None:
                admit = admits[rules] = nationality_allowed(RatePlanRules.build(
                    base_adults=0, max_adults=0, max_children=0, max_occupancy=0,
                    allowed_nationalities=allowed, blocked_nationalities=blocked), nationality)
        else:
            admit = unruled
        if not admit:
            bits[i] |= BIT["nationality"]
    return bits
