"""The service's own penalty for a pushed reservation's cancellation (contract 10). Pure."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from ..pricing.money import round_money


def penalty_for_cancellation(*, net_amount: Decimal, currency: str, non_refundable: bool,
                             deadline: dt.date | None, cancelled_on: dt.date) -> Decimal:
    """100% of `net_amount` when the reservation is non-refundable or is cancelled after its
    `cancellation_deadline` (on the deadline day itself is still free), else nothing."""
    due = non_refundable or (deadline is not None and cancelled_on > deadline)
    return round_money(net_amount if due else Decimal(0), currency)
