"""What search, rates (and later quote and booking) share about a requested stay: "today" at the
property, the currency the answer is given in, and the rooms as the search SQL takes them."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

import pycountry
from psycopg.types.json import Jsonb

from connectivity.web.errors import CurrencyNotSupported, ValidationFailed
from connectivity.pricing.money import FxTable, minor_units
from connectivity.pricing.money import CurrencyNotSupported as NoFxRate


def property_today(timezone: str, now: dt.datetime) -> dt.date:
    return now.astimezone(_zone(timezone)).date()


@cache
def _zone(name: str) -> ZoneInfo:
    # ZoneInfo's own cache keeps 8 zones: a search over hotels in more zones read the tz files
    # again for each hotel.
    return ZoneInfo(name)


def past_check_in(today: dt.date, where: str) -> ValidationFailed:
    return ValidationFailed({"check_in": [
        f"must be today or later: today is {today.isoformat()} at {where}"]})


def ensure_check_in_not_past(check_in: dt.date, timezone: str, hotel_code: str,
                             now: dt.datetime) -> None:
    """"Today or later" in the property's timezone (contract section 10)."""
    today = property_today(timezone, now)
    if check_in < today:
        raise past_check_in(today, f"hotel {hotel_code}")


def fx_multiplier(fx: FxTable, source: str, target: str) -> Any:
    try:
        return fx.rate(source, target)
    except NoFxRate:
        raise CurrencyNotSupported(
            f"prices in {source} cannot be given in {target}: no exchange rate is configured",
            details={"currency": target, "from": source}) from None


@cache
def minor_units_table() -> Jsonb:
    """{"EUR": 2, "JPY": 0, ...} for every ISO 4217 code: the search SQL rounds money with the
    same CLDR figures Python uses, so the two never differ by a minor unit. Sent as a jsonb
    parameter, which the server decodes once per statement, not once per row."""
    return Jsonb({c.alpha_3: minor_units(c.alpha_3) for c in pycountry.currencies})


def distinct_rooms(occupancy: Sequence[Mapping[str, Any]], rooms: int) -> Jsonb:
    """The rooms of a request as the search SQL takes them: each distinct room once with how
    many there are. One occupancy entry stands for every room; a child whose age was not sent is
    a child of unknown age (null), still priced as a child."""
    entries = list(occupancy) * rooms if len(occupancy) == 1 else list(occupancy)
    counted = Counter(
        (entry["adults"],
         tuple(entry["child_ages"]) if entry.get("child_ages") is not None
         else (None,) * entry.get("children", 0))
        for entry in entries)
    return Jsonb([{"entry": i, "qty": qty, "adults": adults, "ages": list(ages)}
                  for i, ((adults, ages), qty) in enumerate(counted.items())])
