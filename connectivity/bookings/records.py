"""A stored booking as the partner reads it, as the hotel's receiver reads it (contract 12.2's
hotel_booking, 13.2's hotel booking), and the fingerprint of a booking request."""

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
                  "penalty_amount", "hotel_confirmation_code", "hotel_acknowledged_at")

# contract 12.2's hotel_booking data: these of the booking, then the receiver's codes, the
# booking partner's name and `unmapped` (hotel_booking).
HOTEL_BOOKING_FIELDS = ("confirmation_number", "status", "check_in", "check_out", "rooms",
                        "nights", "total_amount", "currency", "cancellation_policy", "guests",
                        "contact", "created_at", "cancelled_at", "penalty_amount")


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


def hotel_booking(view: dict[str, Any], receiver: dict[str, Any]) -> dict[str, Any]:
    """The booking (`booking_view`) as one receiver of its hotel reads it, in its codes:
    `receiver` holds its `hotel_code`, `room_type_code` and `rate_plan_code` (None where it maps
    none: named in `unmapped`) and the booking partner's name as `channel_name`. The one home
    of that shape: the hotel_booking.* events and GET /hotel-bookings both come from here."""
    unmapped = [level for level in ("room_type", "rate_plan")
                if receiver[f"{level}_code"] is None]
    return {**{name: view[name] for name in HOTEL_BOOKING_FIELDS},
            "hotel_code": receiver["hotel_code"],
            "room_type_code": receiver["room_type_code"],
            "rate_plan_code": receiver["rate_plan_code"],
            "channel_name": receiver["channel_name"], "unmapped": unmapped}


def hotel_acknowledgement(row: dict) -> dict[str, Any]:
    """What a hotel booking says of the hotel's acknowledgement (contract 13.2): `acknowledged`
    when the status the hotel last loaded is the booking's status now (a cancellation after an
    acknowledgement makes it false again), `acknowledged_at` when that status was first
    acknowledged, and the hotel's own code."""
    acknowledged = row["hotel_acknowledged_status"] == row["status"]
    return {"acknowledged": acknowledged,
            "acknowledged_at": row["hotel_status_acknowledged_at"] if acknowledged else None,
            "hotel_confirmation_code": row["hotel_confirmation_code"]}


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
