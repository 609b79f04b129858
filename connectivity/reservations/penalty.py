"""The service's own penalty for a pushed reservation's cancellation (contract 10). Pure.

Not the pull booking's penalty (`pricing.penalties.booking_policy_penalty`, tiers of a copied
cancellation policy): a pushed reservation carries only `is_non_refundable` and a deadline."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from connectivity.pricing.money import round_money


def pushed_reservation_penalty(*, net_amount: Decimal, currency: str, non_refundable: bool,
                               deadline: dt.date | None, cancelled_on: dt.date) -> Decimal:
    """100% of `net_amount` when the reservation is non-refundable or is cancelled after its
    `cancellation_deadline` (on the deadline day itself is still free), else nothing."""
    due = non_refundable or (deadline is not None and cancelled_on > deadline)
    return round_money(net_amount if due else Decimal(0), currency)
