"""The price of one night: per room from the night's rates, then for all the stay's rooms.

Prices are per room and per night (specification, PUT /ari: "`rate` is per night, per room").
A missing price is not zero: a night that cannot be priced makes the stay unsellable with reason
`no_rate`, so every function here answers None rather than guessing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from connectivity.pricing.occupancy import RoomOccupancy

__all__ = ["NightRates", "night_amount", "room_night_price"]


@dataclass(frozen=True)
class NightRates:
    """A (room type, rate plan, date)'s prices in the rate plan's currency; None = never sent."""

    rate: Decimal | None = None
    single_rate: Decimal | None = None
    extra_adult_rate: Decimal | None = None
    extra_child_rate: Decimal | None = None


def room_night_price(rates: NightRates | None, room: RoomOccupancy,
                     base_adults: int) -> Decimal | None:
    """One room's price for one night (contract section 8), or None when it cannot be priced.

    `single_rate` replaces `rate` for a lone adult (children, if any, still pay their extra);
    each adult above `base_adults` pays `extra_adult_rate` and every child `extra_child_rate`.
    A guest who needs an extra rate that was never sent makes the room unpriceable: charging
    them nothing would sell the room below the hotel's price.
    """
    if rates is None:
        return None
    if room.adults == 1 and rates.single_rate is not None:
        price = rates.single_rate
    elif rates.rate is not None:
        price = rates.rate
    else:
        return None
    extra_adults = max(0, room.adults - base_adults)
    if extra_adults:
        if rates.extra_adult_rate is None:
            return None
        price += rates.extra_adult_rate * extra_adults
    if room.children:
        if rates.extra_child_rate is None:
            return None
        price += rates.extra_child_rate * room.children
    return price


def night_amount(rates: NightRates | None, rooms: Sequence[RoomOccupancy],
                 base_adults: int) -> Decimal | None:
    """The night's price for all the stay's rooms (`nights[].amount`, before rounding), or None
    when any room cannot be priced: a partial sum would understate the stay."""
    total = Decimal(0)
    for room in rooms:
        price = room_night_price(rates, room, base_adults)
        if price is None:
            return None
        total += price
    return total
