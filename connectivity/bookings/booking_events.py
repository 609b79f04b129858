"""The events of a pull booking (contract 12.2), written in the booking's own transaction:
`booking.confirmed` / `booking.cancelled` for the booking partner, and `hotel_booking.*` for each
partner whose mapping of the hotel `receives_bookings` (never the booking partner itself), in
that partner's codes. Both beside the booking, on its shard (events/log.py)."""

from __future__ import annotations

from typing import Any

from connectivity.events import log
from connectivity.store.queries import queries
from connectivity.bookings.records import booking_view
from connectivity.bookings.schemas import BookingDataSchema

# contract 12.2's hotel_booking data: these of the booking, then the receiver's codes, the
# booking partner's name and `unmapped`.
HOTEL_BOOKING_FIELDS = ("confirmation_number", "status", "check_in", "check_out", "rooms",
                        "nights", "total_amount", "currency", "cancellation_policy", "guests",
                        "contact", "created_at", "cancelled_at", "penalty_amount")

_BOOKING = BookingDataSchema()


def announce(conn, row: dict[str, Any], status: str) -> None:
    """`row`: the booking as stored just now (confirmed or cancelled), in this transaction."""
    booking = _BOOKING.dump({"booking": booking_view(row)})["booking"]
    where = {"property_id": row["property_id"], "environment": row["environment"]}
    log.record(conn, **where, partner_id=row["partner_id"], type=f"booking.{status}",
               data={"booking": booking})
    for receiver in queries().bookings.hotel_receivers(
            conn, property_id=row["property_id"], partner_id=row["partner_id"],
            room_type_id=row["room_type_id"], rate_plan_id=row["rate_plan_id"]):
        log.record(conn, **where, partner_id=receiver["partner_id"],
                   type=f"hotel_booking.{status}",
                   data={"booking": hotel_booking(booking, receiver)})


def hotel_booking(booking: dict[str, Any], receiver: dict[str, Any]) -> dict[str, Any]:
    unmapped = [level for level in ("room_type", "rate_plan")
                if receiver[f"{level}_code"] is None]
    return {**{name: booking[name] for name in HOTEL_BOOKING_FIELDS},
            "hotel_code": receiver["hotel_code"],
            "room_type_code": receiver["room_type_code"],
            "rate_plan_code": receiver["rate_plan_code"],
            "channel_name": receiver["channel_name"], "unmapped": unmapped}
