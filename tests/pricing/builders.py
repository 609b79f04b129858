"""Small builders for pricing tests: a sellable baseline stay that each test bends one way."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from connectivity.pricing import (
    NightInput,
    NightRates,
    NightRestrictions,
    RatePlanRules,
    RoomOccupancy,
    evaluate_stay,
)

CHECK_IN = dt.date(2027, 5, 10)
D = Decimal

# base 2 adults, up to 3 adults and 2 children, 4 guests; room type holds 4 (demo LIS1 / BAR).
PLAN = RatePlanRules.build(base_adults=2, max_adults=3, max_children=2, max_occupancy=4)
RATES = NightRates(rate=D("100.00"), single_rate=D("80.00"), extra_adult_rate=D("30.00"),
                   extra_child_rate=D("15.00"))
TWO_ADULTS = RoomOccupancy(2)


def day(offset: int) -> dt.date:
    return CHECK_IN + dt.timedelta(days=offset)


def night(offset: int, *, available: int | None = 5, rates: NightRates | None = RATES,
          **restrictions) -> NightInput:
    return NightInput(day(offset), available, NightRestrictions(**restrictions), rates)


def stay(nights: int = 3, *, rooms: int = 1, overrides: dict[int, NightInput] | None = None,
         occupancy: tuple[RoomOccupancy, ...] | None = None, plan: RatePlanRules = PLAN,
         room_type_max_occupancy: int = 4, nationality: str | None = None,
         currency: str = "EUR", departure: NightRestrictions | None = None):
    """evaluate_stay over `nights` nights from CHECK_IN; `overrides[i]` replaces night i."""
    inputs = [night(i) for i in range(nights)]
    for index, replacement in (overrides or {}).items():
        inputs[index] = replacement
    return evaluate_stay(
        check_in=CHECK_IN, check_out=day(nights), rooms=rooms, nights=inputs,
        occupancy=occupancy if occupancy is not None else (TWO_ADULTS,) * rooms,
        plan=plan, room_type_max_occupancy=room_type_max_occupancy, nationality=nationality,
        currency=currency, departure_restrictions=departure)
