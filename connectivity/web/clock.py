"""The request clock: the "now" a route hands its use case, which decides with it (today at the
property, a quote token's expiry, a cancellation's penalty)."""

from __future__ import annotations

import datetime as dt


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)
