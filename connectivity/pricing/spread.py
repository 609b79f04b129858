"""A quoted total laid over the nights of a stay.

A booking made with a quote token costs the quoted total, but the token carries no per-night
breakdown (it must fit in 512 characters, and a year-long stay would not). When the live nights
still add up to the quoted total they are the breakdown; when the price moved since the quote,
the quoted total is spread in proportion to the live nights, so the stored nights always add up
to the amount charged and a `nights` penalty stays proportionate.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_DOWN, Decimal

from connectivity.pricing.money import minor_units

__all__ = ["spread_total"]


def spread_total(amounts: Sequence[Decimal], total: Decimal, currency: str) -> tuple[Decimal, ...]:
    """Nights in minor units that sum to exactly `total`, shaped like `amounts`.

    Every night but the last is rounded down and the last takes the remainder, so no night is
    ever negative. All-zero amounts (a free stay now priced) spread the total evenly.
    """
    if not amounts:
        raise ValueError("a stay has at least one night")
    if total < 0 or any(a < 0 for a in amounts):
        raise ValueError("amounts and total must not be negative")
    unit = Decimal(1).scaleb(-minor_units(currency))
    live = sum(amounts, Decimal(0))
    if live == total:
        return tuple(a.quantize(unit) for a in amounts)
    weights = amounts if live > 0 else [Decimal(1)] * len(amounts)
    weight_total = sum(weights, Decimal(0))
    head = [(total * w / weight_total).quantize(unit, rounding=ROUND_DOWN) for w in weights[:-1]]
    return (*head, (total - sum(head, Decimal(0))).quantize(unit))
