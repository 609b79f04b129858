"""Whether a stay can be sold for one (room type, rate plan), why not, and at what price.

`evaluate_stay` is the single decision used by search, rates, quote and booking, so the four can
never disagree about a stay. It always prices what it can: `availability/rates` shows nights and
totals of unsellable plans too, with the reasons beside them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from connectivity.pricing.money import convert_nights, round_money
from connectivity.pricing.nightly import NightRates, night_amount
from connectivity.pricing.occupancy import RoomOccupancy
from connectivity.pricing.plan_rules import RatePlanRules, nationality_allowed, occupancy_fits
from connectivity.pricing.stay_nights import stay_nights
from connectivity.pricing.restrictions import NightRestrictions, effective

__all__ = ["REASONS", "NightInput", "NightPrice", "StayQuote", "evaluate_stay",
           "quote_in_currency"]

# The contract's reason strings (section 10), in the order they are reported: the stable order
# lets partners and tests compare lists without sorting.
REASONS = ("closed", "sold_out", "min_stay", "max_stay", "closed_to_arrival",
           "closed_to_departure", "occupancy", "nationality", "no_rate")


@dataclass(frozen=True)
class NightInput:
    """What storage knows about one night of the stay.

    `available_rooms` is the room type's inventory, None when no inventory row exists (nothing
    was ever loaded: zero rooms). `restrictions` are the effective ones (see `effective`);
    `rates` None when the rate plan has no price row for the date.
    """

    date: dt.date
    available_rooms: int | None = None
    restrictions: NightRestrictions = NightRestrictions()
    rates: NightRates | None = None


@dataclass(frozen=True)
class NightPrice:
    """One entry of `nights[]`: the price for all rooms (rounded) and the night's facts."""

    date: dt.date
    amount: Decimal | None
    available_rooms: int
    closed: bool
    min_stay: int | None
    max_stay: int | None
    closed_to_arrival: bool
    closed_to_departure: bool


@dataclass(frozen=True)
class StayQuote:
    """The outcome for one (room type, rate plan): sellable, reasons, nights and total.

    `total` is the sum of the rounded night amounts, None when any night has no price.
    """

    sellable: bool
    reasons: tuple[str, ...]
    nights: tuple[NightPrice, ...]
    total: Decimal | None
    currency: str


def _index_nights(nights: Sequence[NightInput], dates: list[dt.date]) -> dict[dt.date, NightInput]:
    """Nights by date; a date storage knows nothing about is a night with no inventory and no
    rate. A night outside the stay, or a date twice, is a caller's bug and is refused."""
    wanted = set(dates)
    by_date: dict[dt.date, NightInput] = {}
    for night in nights:
        if night.date not in wanted:
            raise ValueError(f"{night.date} is not a night of the stay "
                             "(the check-out date goes in departure_restrictions)")
        if night.date in by_date:
            raise ValueError(f"{night.date} given twice")
        by_date[night.date] = night
    return by_date


def evaluate_stay(*, check_in: dt.date, check_out: dt.date, rooms: int,
                  nights: Sequence[NightInput], occupancy: Sequence[RoomOccupancy],
                  plan: RatePlanRules, room_type_max_occupancy: int,
                  nationality: str | None, currency: str,
                  departure_restrictions: NightRestrictions | None = None) -> StayQuote:
    """Sellability and price of a stay (contract section 8).

    Sellable when, for every night, a rate exists, it is not closed and at least `rooms` rooms
    are available; CTA is false on `check_in` and CTD false on `check_out` (whose restrictions
    come in `departure_restrictions`, since it is not a night of the stay); the number of nights
    is within `min_stay`/`max_stay` as set on the check-in date; every room's occupancy fits the
    plan and the room type; and the nationality is allowed. Amounts are in `currency` (the rate
    plan's), each night rounded to its minor units.
    """
    if check_out <= check_in:
        raise ValueError("check_out must be after check_in")
    if rooms < 1:
        raise ValueError("rooms must be at least 1")
    if len(occupancy) != rooms:
        raise ValueError(f"occupancy must have one entry per room ({rooms}), "
                         f"got {len(occupancy)}")
    dates = stay_nights(check_in, check_out)
    by_date = _index_nights(nights, dates)
    found: set[str] = set()
    priced: list[NightPrice] = []
    for date in dates:
        night = by_date.get(date) or NightInput(date)
        # Accept raw restrictions too: effective() of one level alone turns None flags into
        # False, so the reported night always carries booleans.
        limits = effective(night.restrictions, None)
        available = night.available_rooms or 0
        amount = night_amount(night.rates, occupancy, plan.base_adults)
        if amount is None:
            found.add("no_rate")
        else:
            amount = round_money(amount, currency)
        if limits.closed:
            found.add("closed")
        if available < rooms:
            found.add("sold_out")
        priced.append(NightPrice(date, amount, available, limits.closed, limits.min_stay,
                                 limits.max_stay, limits.closed_to_arrival,
                                 limits.closed_to_departure))

    arrival = priced[0]
    # Length-of-stay limits are those of the arrival date, as channel managers set them.
    if arrival.min_stay is not None and len(dates) < arrival.min_stay:
        found.add("min_stay")
    if arrival.max_stay is not None and len(dates) > arrival.max_stay:
        found.add("max_stay")
    if arrival.closed_to_arrival:
        found.add("closed_to_arrival")
    if effective(departure_restrictions, None).closed_to_departure:
        found.add("closed_to_departure")
    if not all(occupancy_fits(plan, room, room_type_max_occupancy) for room in occupancy):
        found.add("occupancy")
    if not nationality_allowed(plan, nationality):
        found.add("nationality")

    amounts = [n.amount for n in priced]
    total = None if any(a is None for a in amounts) else round_money(sum(amounts, Decimal(0)),
                                                                      currency)
    reasons = tuple(r for r in REASONS if r in found)
    return StayQuote(not reasons, reasons, tuple(priced), total, currency)


def quote_in_currency(quote: StayQuote, rate: Decimal, currency: str) -> StayQuote:
    """The same quote in another currency: each night converted and rounded to the target's
    minor units, the total the sum of those rounded nights (contract section 10).

    `rate` is the FX multiplier from the quote's currency (FxTable.rate(quote.currency,
    currency)). Same currency: returned unchanged, so no rounding drift is introduced.
    """
    if currency.upper() == quote.currency.upper():
        return quote
    converted = convert_nights([n.amount for n in quote.nights], rate, currency)
    nights = tuple(replace(night, amount=amount)
                   for night, amount in zip(quote.nights, converted.amounts))
    return replace(quote, nights=nights, total=converted.total, currency=currency)
