"""Cancellation policies and the penalty of cancelling a booking.

A booking keeps a copy of the policy in force when it was made, in the contract's dict shape
(section 8); the penalty is computed from that copy, never from the plan's current policy.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from connectivity.pricing.money import round_money, to_decimal

__all__ = ["PENALTY_TYPES", "CancellationPolicy", "PenaltyTier", "hours_before_check_in",
           "booking_policy_penalty"]

PENALTY_TYPES = ("nights", "percent", "amount")


@dataclass(frozen=True)
class PenaltyTier:
    """Cancelling with `within_hours` or fewer hours left costs `value` of `penalty_type`:
    a number of nights, a percent of the total, or a fixed amount per booking in the rate
    plan's currency."""

    within_hours: int
    penalty_type: str
    value: Decimal

    def to_dict(self) -> dict[str, Any]:
        return {"within_hours": self.within_hours,
                "penalty": {"type": self.penalty_type, "value": self.value}}


@dataclass(frozen=True)
class CancellationPolicy:
    non_refundable: bool
    tiers: tuple[PenaltyTier, ...] = ()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CancellationPolicy:
        """Parse the contract's shape; a malformed policy raises ValueError (it comes from the
        operator's catalogue, so failing loudly beats silently charging nothing)."""
        if not isinstance(data, Mapping):
            raise ValueError("cancellation policy must be an object")
        non_refundable = data.get("non_refundable", False)
        if not isinstance(non_refundable, bool):
            raise ValueError("non_refundable must be a boolean")
        tiers = []
        for i, tier in enumerate(data.get("tiers") or ()):
            try:
                hours, penalty = tier["within_hours"], tier["penalty"]
                kind, value = penalty["type"], to_decimal(penalty["value"])
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"tiers.{i}: malformed tier ({exc})") from None
            if isinstance(hours, bool) or not isinstance(hours, int) or hours < 0:
                raise ValueError(f"tiers.{i}.within_hours must be an integer of at least 0")
            if kind not in PENALTY_TYPES:
                raise ValueError(f"tiers.{i}.penalty.type must be one of {PENALTY_TYPES}")
            if value < 0:
                raise ValueError(f"tiers.{i}.penalty.value must be at least 0")
            tiers.append(PenaltyTier(hours, kind, value))
        return cls(non_refundable, tuple(tiers))

    def to_dict(self) -> dict[str, Any]:
        return {"non_refundable": self.non_refundable,
                "tiers": [tier.to_dict() for tier in self.tiers]}


def hours_before_check_in(now_utc: dt.datetime, check_in: dt.date,
                          property_timezone: str) -> Decimal:
    """Hours from `now_utc` to 00:00 of the check-in date in the property's timezone
    (contract section 8); negative once that moment has passed.

    Computed on UTC instants, so a DST change between now and check-in counts as the 23 or 25
    hours that really elapse. Decimal from whole microseconds, so a tier boundary is decided to
    the microsecond (exactly 48 h left is 48, never 47.99999999 as float division might say).
    """
    if now_utc.tzinfo is None or now_utc.utcoffset() is None:
        raise ValueError("now_utc must be timezone-aware")
    midnight = dt.datetime.combine(check_in, dt.time(0), tzinfo=ZoneInfo(property_timezone))
    # Both sides to UTC first: subtracting two datetimes sharing a tzinfo ignores DST.
    left = midnight.astimezone(dt.timezone.utc) - now_utc.astimezone(dt.timezone.utc)
    return Decimal(left // dt.timedelta(microseconds=1)) / Decimal(3_600_000_000)


def _tier_penalty(tier: PenaltyTier, nights_amounts: Sequence[Decimal], total: Decimal,
                  amount_converter: Callable[[Decimal], Decimal]) -> Decimal:
    if tier.penalty_type == "nights":
        whole = int(tier.value)
        penalty = sum(nights_amounts[:whole], Decimal(0))
        fraction = tier.value - whole
        if fraction and whole < len(nights_amounts):
            # A fractional count charges that share of the next night (e.g. 0.5 = half a night).
            penalty += nights_amounts[whole] * fraction
        return penalty
    if tier.penalty_type == "percent":
        return total * tier.value / Decimal(100)
    return amount_converter(tier.value)


def booking_policy_penalty(policy: CancellationPolicy, nights_amounts: Sequence[Decimal],
                           total: Decimal, hours_left: Decimal | int, currency: str,
                           amount_converter: Callable[[Decimal], Decimal] | None = None
                           ) -> Decimal:
    """The penalty of cancelling a pull booking now under its copied policy, in the booking's
    currency, rounded to its minor units.

    `nights_amounts` are the booking's night amounts (all rooms) in stay order and `total` their
    sum, both in the booking's currency. Non-refundable costs the total. Otherwise every tier
    whose `within_hours` covers the hours left (hours_left <= within_hours; after check-in time
    hours_left is negative and every tier covers it) yields a penalty and the largest one
    applies; no tier applies means no penalty. `amount_converter` takes an `amount` tier's value
    from the rate plan's currency to the booking's (convert like prices); identity by default.
    The result never exceeds the total and is never negative.
    """
    if total < 0:
        raise ValueError("total must not be negative")
    if policy.non_refundable:
        return round_money(total, currency)
    convert = amount_converter or (lambda amount: amount)
    candidates = [_tier_penalty(tier, nights_amounts, total, convert)
                  for tier in policy.tiers if hours_left <= tier.within_hours]
    penalty = max(candidates, default=Decimal(0))
    # Cap before rounding: total is already in minor units, so the rounded cap stays <= total.
    return round_money(min(max(penalty, Decimal(0)), total), currency)
