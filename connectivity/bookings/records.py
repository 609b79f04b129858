"""A stored booking as the partner reads it, and the fingerprint of a booking request."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from decimal import Decimal
from typing import Any

BOOKING_FIELDS = ("partner_reference", "confirmation_number", "status", "hotel_code",
                  "room_type_code", "rate_plan_code", "check_in", "check_out", "rooms",
                  "total_amount", "currency", "cancellation_policy", "guests", "contact",
                  "special_requests", "arrival_time", "created_at", "cancelled_at",
                  "penalty_amount")


# What `privacy purge` replaces (connectivity/operator/privacy.py): answered null once purged,
# never as if the partner had sent them empty.
PURGED_FIELDS = ("guests", "contact", "special_requests")


def booking_view(row: dict) -> dict:
    view = {**{name: row[name] for name in BOOKING_FIELDS},
            "nights": [{"date": dt.date.fromisoformat(n["date"]), "amount": Decimal(n["amount"])}
                       for n in row["nights"]],
            "guest_data_purged": row["guest_data_purged_at"] is not None,
            "guest_data_purged_at": row["guest_data_purged_at"]}
    if view["guest_data_purged"]:
        view.update(dict.fromkeys(PURGED_FIELDS))
    return view


def stored_nights(dates: list[dt.date], amounts: tuple[Decimal, ...]) -> list[dict]:
    # Amounts as strings: a JSON number would come back from jsonb as a float.
    return [{"date": d.isoformat(), "amount": str(a)} for d, a in zip(dates, amounts, strict=True)]


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        # 200, 200.0 and "200.00" are one amount: the same fingerprint.
        return format(value.normalize(), "f")
    if isinstance(value, dt.date):
        return value.isoformat()
    raise TypeError(f"cannot fingerprint {type(value).__name__}")


def request_fingerprint(request: dict[str, Any]) -> bytes:
    """sha256 of the request as loaded (key order, number spelling and white space do not
    count): a replay whose fingerprint differs is answered with `request_differs: true`."""
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), default=_plain)
    return hashlib.sha256(canonical.encode()).digest()
