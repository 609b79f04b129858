"""The events of a pull booking (contract 12.2, 13.2), written in the booking's own transaction:
`booking.confirmed` / `booking.cancelled` for the booking partner, and `hotel_booking.*` for each
partner whose mapping of the hotel `receives_bookings` (never the booking partner itself), in
that partner's codes; `booking.hotel_confirmed` for the booking partner when the hotel
acknowledges (bookings/acknowledge.py). All beside the booking, on its shard (events/log.py)."""

from __future__ import annotations

from typing import Any

from connectivity.events import log
from connectivity.store.queries import queries
from connectivity.bookings.hotel_schemas import HotelBookingEventSchema
from connectivity.bookings.records import booking_view, hotel_booking
from connectivity.bookings.schemas import BookingDataSchema

_BOOKING = BookingDataSchema()
_HOTEL_BOOKING = HotelBookingEventSchema()


def announce(conn, row: dict[str, Any], status: str) -> None:
    """`row`: the booking as stored just now (confirmed or cancelled), in this transaction."""
    view = booking_view(row)
    where = {"property_id": row["property_id"], "environment": row["environment"]}
    log.record(conn, **where, partner_id=row["partner_id"], type=f"booking.{status}",
               data=_BOOKING.dump({"booking": view}))
    for receiver in queries().bookings.hotel_receivers(
            conn, property_id=row["property_id"], partner_id=row["partner_id"],
            room_type_id=row["room_type_id"], rate_plan_id=row["rate_plan_id"]):
        log.record(conn, **where, partner_id=receiver["partner_id"],
                   type=f"hotel_booking.{status}",
                   data={"booking": _HOTEL_BOOKING.dump(hotel_booking(view, receiver))})


def announce_hotel_confirmation(conn, row: dict[str, Any]) -> None:
    """booking.hotel_confirmed for the booking partner: `row`, as the acknowledgement stored it
    just now, carries the hotel's answer (hotel_acknowledged_at, hotel_confirmation_code)."""
    log.record(conn, property_id=row["property_id"], environment=row["environment"],
               partner_id=row["partner_id"], type="booking.hotel_confirmed",
               data=_BOOKING.dump({"booking": booking_view(row)}))
