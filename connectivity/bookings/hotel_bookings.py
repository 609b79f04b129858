"""GET /hotel-bookings and GET /hotel-bookings/{confirmationNumber} (contract 13.2): the pull
bookings other partners made on the hotels the caller receives bookings for (its mapping has
`receives_bookings`), in its key's environment, as the hotel_booking.* events give them in its
codes (records.hotel_booking), with the hotel's acknowledgement. Anything else, the caller's own
bookings included, is answered as absent."""

from __future__ import annotations

from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.web.errors import NotFound
from connectivity.bookings.listing import ListCursors, list_page
from connectivity.bookings.records import booking_view, hotel_acknowledgement, hotel_booking

FILTERS = ("hotel_code", "status", "acknowledged")
CURSOR_SALT = "pcs.hotel-booking-list-cursor.v1"


def hotel_booking_view(row: dict[str, Any]) -> dict[str, Any]:
    """A booking row read with its receiver's codes (sql/queries/bookings/hotel_bookings.sql:
    receiver_hotel_code, receiver_room_type_code, receiver_rate_plan_code, channel_name)."""
    view = booking_view(row)
    receiver = {"hotel_code": row["receiver_hotel_code"],
                "room_type_code": row["receiver_room_type_code"],
                "rate_plan_code": row["receiver_rate_plan_code"],
                "channel_name": row["channel_name"]}
    return {**hotel_booking(view, receiver), **hotel_acknowledgement(row),
            "guest_data_purged": view["guest_data_purged"],
            "guest_data_purged_at": view["guest_data_purged_at"]}


def find_hotel_booking(conn, caller: Caller, confirmation_number: str) -> dict[str, Any]:
    """The caller's hotel booking by its confirmation number, with its codes; 404 otherwise."""
    row = queries().bookings.find_hotel_booking(
        conn, receiver_id=caller.partner_id, environment=caller.environment,
        confirmation_number=confirmation_number)
    if row is None:
        raise NotFound(f"no hotel booking {confirmation_number} on a hotel whose bookings "
                       "this partner receives")
    return row


def read_hotel_booking(db: Database, caller: Caller, confirmation_number: str) -> dict:
    with db.connection() as conn:
        return {"hotel_booking": hotel_booking_view(
            find_hotel_booking(conn, caller, confirmation_number))}


def list_hotel_bookings(db: Database, cursors: ListCursors, caller: Caller,
                        query: dict[str, Any]) -> dict:
    """`acknowledged=false` reads through the index of unacknowledged bookings only (its own
    statement, whose condition is that index's predicate)."""
    q = queries().bookings
    acknowledged = query.get("acknowledged")

    def read_rows(conn, property_id, after, page_size):
        where = {"receiver_id": caller.partner_id, "environment": caller.environment,
                 "property_id": property_id, "status": query.get("status"),
                 "after_created_at": after[0], "after_id": after[1], "page_size": page_size}
        if acknowledged is False:
            return q.list_unacknowledged_hotel_bookings(conn, **where)
        return q.list_hotel_bookings(conn, **where, acknowledged_only=acknowledged is True)
    return list_page(db, cursors, caller, query, FILTERS, "hotel_bookings", read_rows,
                     hotel_booking_view)
