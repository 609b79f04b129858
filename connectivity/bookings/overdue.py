"""The hotel bookings no hotel has acknowledged in time (contract 13.2): `flask --app app
hotel-bookings overdue` (docs/operations.md, "Hotel bookings nobody acknowledged"). A booking
waits from when it was made, or, once its confirmation was acknowledged, from its
cancellation (migration 0031)."""

from __future__ import annotations

import datetime as dt

from connectivity.store.queries import queries


def overdue_hotel_bookings(conn, now: dt.datetime, older_than_seconds: int,
                           partner_code: str | None = None) -> list[dict]:
    """Every hotel booking waiting for its acknowledgement for more than `older_than_seconds`
    at `now`, oldest wait first, with `waiting_seconds`; of one receiving partner when
    `partner_code` is given (LookupError when no partner has that code)."""
    if partner_code is not None and queries().operator.find_partner(conn, code=partner_code) \
            is None:
        raise LookupError(f"unknown partner {partner_code!r}")
    rows = queries().bookings.overdue_hotel_bookings(
        conn, partner_code=partner_code,
        due_before=now - dt.timedelta(seconds=older_than_seconds))
    return [{**row, "waiting_seconds": int((now - row["waiting_since"]).total_seconds())}
            for row in rows]
