"""POST /hotel-bookings/{confirmationNumber}/acknowledge (contract 13.2): the hotel's system has
loaded the booking in the status it names, and may give the hotel's own confirmation code.

One transaction, which writes only on the booking's shard under Citus (its row and, when the
booking partner is to hear of it, its event beside it): no two-phase commit. The booking is
found first by its confirmation number among the caller's hotels (a read, which fans out to
their shards); then one conditional UPDATE decides (sql/queries/bookings/hotel_bookings.sql
acknowledge_booking): it stores only when the booking is in the named status now and the
acknowledgement says something new. PostgreSQL's row lock orders it with a concurrent
acknowledgement (one stores, one event) and with the booking partner's cancel (the
acknowledgement is judged on the status the cancel left). Python reads the row afterwards
only to say why nothing was stored: the status changed (409 `status_changed`, with the
current one), or it was a repeat (the same answer)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.web.errors import Conflict
from connectivity.bookings.booking_events import announce_hotel_confirmation
from connectivity.bookings.hotel_bookings import find_hotel_booking, hotel_booking_view

# The columns of a hotel booking's row that say who receives it in which codes: the
# acknowledgement's answer keeps them from the lookup (the UPDATE returns the booking alone).
RECEIVER_COLUMNS = ("receiver_hotel_code", "receiver_room_type_code", "receiver_rate_plan_code",
                    "channel_name")


def acknowledge_hotel_booking(db: Database, caller: Caller, confirmation_number: str,
                              request: dict[str, Any], now: dt.datetime) -> dict:
    return db.run(_acknowledge, caller, confirmation_number, request, now)


def _acknowledge(conn, caller: Caller, confirmation_number: str, request: dict,
                 now: dt.datetime) -> dict:
    q = queries().bookings
    found = find_hotel_booking(conn, caller, confirmation_number)
    receiver = {name: found[name] for name in RECEIVER_COLUMNS}
    stored = q.acknowledge_booking(
        conn, property_id=found["property_id"], id=found["id"], status=request["status"],
        hotel_confirmation_code=request.get("hotel_confirmation_code"), acknowledged_at=now)
    if stored is None:
        # Nothing stored. The row is locked by the statement above until this transaction
        # ends, so what is read now is what it judged.
        current = q.find_booking(conn, property_id=found["property_id"], booking_id=found["id"])
        if current["status"] != request["status"]:
            raise Conflict("status_changed",
                           f"booking {confirmation_number} is {current['status']} now, not "
                           f"{request['status']}: load its current state into the hotel's "
                           "system, then acknowledge that; nothing was stored",
                           details={"status": current["status"]})
        return {"hotel_booking": hotel_booking_view({**current, **receiver})}
    if stored["first_confirmed"] or stored["code_changed"]:
        announce_hotel_confirmation(conn, stored)
    return {"hotel_booking": hotel_booking_view({**stored, **receiver})}
