"""The nights of a stay: the one rule every area uses to turn check-in/check-out into dates."""

from __future__ import annotations

import datetime as dt

__all__ = ["stay_nights"]


def stay_nights(check_in: dt.date, check_out: dt.date) -> list[dt.date]:
    """Every night from `check_in` up to, not including, `check_out` (the guest leaves that
    morning, so the check-out date is not a night). Empty when check-out is not after check-in."""
    return [check_in + dt.timedelta(days=i) for i in range((check_out - check_in).days)]
