"""GET /bookings (contract 12.1): the caller's pull bookings in its key's environment, oldest
created first, filtered, in pages; and that paging, which GET /hotel-bookings shares
(hotel_bookings.py). The cursor carries the last (created_at, id) served and a
digest of the filters it was issued for, signed: it is only valid with those filters (422
naming `cursor` otherwise, as for one that is not ours). A listing, not a feed: to follow what
happens, read GET /events."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable, Sequence
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
    """Each listing signs its cursors under its own salt: one listing's cursor is foreign to
    another (422 naming `cursor`)."""

    def __init__(self, secret_keys: str | Sequence[str], salt: str = SALT):
        keys = [secret_keys] if isinstance(secret_keys, str) else list(secret_keys)
        self._serializer = URLSafeSerializer(keys, salt=salt)

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


def filters_digest(query: dict[str, Any], names: Sequence[str] = FILTERS) -> str:
    given = {name: str(query[name]) for name in names if query.get(name) is not None}
    return hashlib.sha256(json.dumps(given, sort_keys=True).encode()).hexdigest()[:16]


def list_bookings(db: Database, cursors: ListCursors, caller: Caller,
                  query: dict[str, Any]) -> dict:
    def read_rows(conn, property_id, after, page_size):
        return queries().bookings.list_bookings(
            conn, partner_id=caller.partner_id, environment=caller.environment,
            property_id=property_id, status=query.get("status"),
            created_from=query.get("created_from"), created_to=query.get("created_to"),
            check_in_from=query.get("check_in_from"), check_in_to=query.get("check_in_to"),
            after_created_at=after[0], after_id=after[1], page_size=page_size)
    return list_page(db, cursors, caller, query, FILTERS, "bookings", read_rows, booking_view)


def list_page(db: Database, cursors: ListCursors, caller: Caller, query: dict[str, Any],
              filters: Sequence[str], name: str,
              read_rows: Callable[..., list[dict]], view: Callable[[dict], dict]) -> dict:
    """A page of a listing ordered by (created_at, id) (GET /bookings, GET /hotel-bookings):
    `read_rows(conn, property_id, after, page_size)` reads up to page_size + 1 rows after the
    cursor's (created_at, id), of the hotel the caller's `hotel_code` names (None: all); a code
    the caller does not map gives an empty page. The answer under `name`, each row by `view`."""
    digest = filters_digest(query, filters)
    after = (None, None) if "cursor" not in query else cursors.load(query["cursor"], caller,
                                                                      digest)
    size = query["limit"]
    with db.connection() as conn:
        property_id = None
        if query.get("hotel_code") is not None:
            hotel = find_hotel(conn, caller, query["hotel_code"])
            if hotel is None:
                return {name: [], "next_cursor": None, "has_more": False}
            property_id = hotel["property_id"]
        rows = read_rows(conn, property_id, after, size)
    has_more = len(rows) > size
    rows = rows[:size]
    return {name: [view(row) for row in rows],
            "next_cursor": (cursors.dump(caller, digest, rows[-1]["created_at"], rows[-1]["id"])
                            if has_more else None),
            "has_more": has_more}
