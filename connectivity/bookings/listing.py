"""GET /bookings (contract 12.1): the caller's pull bookings in its key's environment, oldest
created first, filtered, in pages. The cursor carries the last (created_at, id) served and a
digest of the filters it was issued for, signed: it is only valid with those filters (422
naming `cursor` otherwise, as for one that is not ours). A listing, not a feed: to follow what
happens, read GET /events."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence
from typing import Any

from itsdangerous import BadData, URLSafeSerializer

from connectivity.auth.authenticate import Caller
from connectivity.mapping.hotel_code import find_hotel
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.web.errors import ValidationFailed
from connectivity.web.fields import FOREIGN_CURSOR
from connectivity.bookings.records import booking_view

FILTERS = ("hotel_code", "status", "created_from", "created_to", "check_in_from",
           "check_in_to")
SALT = "pcs.booking-list-cursor.v1"


class ListCursors:
    def __init__(self, secret_keys: str | Sequence[str]):
        keys = [secret_keys] if isinstance(secret_keys, str) else list(secret_keys)
        self._serializer = URLSafeSerializer(keys, salt=SALT)

    def dump(self, caller: Caller, filters: str, created_at: dt.datetime, booking_id: int) -> str:
        return self._serializer.dumps([caller.partner_id, caller.environment, filters,
                                       created_at.isoformat(), booking_id])

    def load(self, cursor: str, caller: Caller, filters: str) -> tuple[dt.datetime, int]:
        try:
            payload = self._serializer.loads(cursor)
            partner_id, environment, issued_for, created_at, booking_id = payload
            if [partner_id, environment] != [caller.partner_id, caller.environment]:
                raise ValueError("another key's")
            if issued_for != filters:
                raise ValidationFailed({"cursor": [
                    "was issued for other filters; send the filters it came with, or start "
                    "again without a cursor"]})
            return dt.datetime.fromisoformat(created_at), int(booking_id)
        except (BadData, ValueError, TypeError):
            raise ValidationFailed({"cursor": [FOREIGN_CURSOR]}) from None


def filters_digest(query: dict[str, Any]) -> str:
    given = {name: str(query[name]) for name in FILTERS if query.get(name) is not None}
    return hashlib.sha256(json.dumps(given, sort_keys=True).encode()).hexdigest()[:16]


def list_bookings(db: Database, cursors: ListCursors, caller: Caller,
                  query: dict[str, Any]) -> dict:
    filters = filters_digest(query)
    after = (None, None) if "cursor" not in query else cursors.load(query["cursor"], caller,
                                                                      filters)
    size = query["limit"]
    with db.connection() as conn:
        property_id = None
        if query.get("hotel_code") is not None:
            hotel = find_hotel(conn, caller, query["hotel_code"])
            if hotel is None:
                return {"bookings": [], "next_cursor": None, "has_more": False}
            property_id = hotel["property_id"]
        rows = queries().bookings.list_bookings(
            conn, partner_id=caller.partner_id, environment=caller.environment,
            property_id=property_id, status=query.get("status"),
            created_from=query.get("created_from"), created_to=query.get("created_to"),
            check_in_from=query.get("check_in_from"), check_in_to=query.get("check_in_to"),
            after_created_at=after[0], after_id=after[1], page_size=size)
    has_more = len(rows) > size
    rows = rows[:size]
    return {"bookings": [booking_view(row) for row in rows],
            "next_cursor": (cursors.dump(caller, filters, rows[-1]["created_at"], rows[-1]["id"])
                            if has_more else None),
            "has_more": has_more}
