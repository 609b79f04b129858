"""GET /bookings/{reference} and POST /bookings/{reference}/cancel. Both see only the caller's
bookings in the caller's environment; anything else is answered as absent."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from connectivity.store.database import announces
from connectivity.store.read_fence import READS_CHANGED, name_changed
from connectivity.auth.authenticate import Caller
from connectivity.store.claimed import claimed_row
from connectivity.store.database import Database
from connectivity.web.errors import Conflict, NotFound, ServiceUnavailable, ValidationFailed
from connectivity.pricing import CancellationPolicy, booking_policy_penalty, hours_before_check_in
from connectivity.store.queries import queries
from connectivity.web.fields import money_number
from connectivity.bookings.booking_events import announce
from connectivity.bookings.records import booking_view


def find_booking(conn, caller: Caller, reference: str) -> dict:
    """Through the reference's claim, then on the booking's own shard (two router reads under
    Citus instead of one query over every shard). No claim: 404. A claim proves its booking
    exists, so a booking not visible yet (Citus, between two workers' commits) is read again
    (store/claimed.py), and is a 503 with Retry-After if it stays unseen, never a 404. Every
    reader of a booking by reference comes here: GET, cancel, and POST's replay."""
    q = queries().bookings
    claim = q.find_claim(conn, partner_id=caller.partner_id, environment=caller.environment,
                         partner_reference=reference)
    if claim is None:
        raise NotFound(f"no booking {reference!r} for this partner")
    row = claimed_row(lambda: q.find_booking(conn, **claim))
    if row is None:
        raise ServiceUnavailable(f"booking {reference!r} is being stored; retry shortly",
                                 retry_after=1)
    return row


def read_booking(db: Database, caller: Caller, reference: str) -> dict:
    with db.connection() as conn:
        return {"booking": booking_view(find_booking(conn, caller, reference))}


def cancel_booking(db: Database, caller: Caller, reference: str, request: dict[str, Any],
                   now: dt.datetime) -> dict:
    return db.run(_cancel, caller, reference, request, now)


def penalty_now(booking: dict, now: dt.datetime) -> Decimal:
    """The penalty of cancelling at `now` under the policy copied into the booking: hours to
    00:00 of check-in in the property's timezone, amounts in the booking's currency."""
    rate = booking["policy_fx_rate"]
    return booking_policy_penalty(
        CancellationPolicy.from_dict(booking["cancellation_policy"]),
        [Decimal(n["amount"]) for n in booking["nights"]], booking["total_amount"],
        hours_before_check_in(now, booking["check_in"], booking["timezone"]),
        booking["currency"], amount_converter=lambda amount: amount * rate)


def ensure_booking_currency(booking: dict, request: dict[str, Any]) -> None:
    """`currency`, when sent with `expected_penalty_amount`, must be the booking's (422)."""
    currency = request.get("currency")
    if currency is not None and currency != booking["currency"]:
        raise ValidationFailed({"currency": [
            f"must be the booking's currency, {booking['currency']}"]})


def _result(booking: dict, replay: bool) -> dict:
    return {"booking": booking_view(booking), "penalty_amount": booking["penalty_amount"],
            "currency": booking["currency"], "idempotent_replay": replay}


@announces(READS_CHANGED)  # search and rates reflect it once answered (13.1)
def _cancel(conn, caller: Caller, reference: str, request: dict, now: dt.datetime) -> dict:
    q = queries().bookings
    booking = find_booking(conn, caller, reference)
    ensure_booking_currency(booking, request)
    if booking["status"] == "cancelled":
        return _result(booking, replay=True)
    penalty = penalty_now(booking, now)
    expected = request.get("expected_penalty_amount")
    if expected is not None and expected < penalty:
        raise Conflict("penalty_exceeds_expectation",
                       f"cancelling now costs {penalty} {booking['currency']}, more than the "
                       f"{expected} expected; the booking was not cancelled",
                       details={"penalty_amount": money_number(penalty),
                                "currency": booking["currency"]})
    cancelled = q.mark_cancelled(conn, property_id=booking["property_id"], id=booking["id"],
                                 cancelled_at=now,
                                 penalty_amount=penalty, cancel_reason=request.get("reason"))
    if cancelled is None:
        # Another cancel changed the status first (and released the rooms): its result stands.
        return _result(find_booking(conn, caller, reference), replay=True)
    q.change_inventory(conn, property_id=booking["property_id"],
                       room_type_id=booking["room_type_id"], check_in=booking["check_in"],
                       check_out=booking["check_out"], change=booking["rooms"])
    name_changed(booking["property_id"])  # its inventory, all this cancel changes
    announce(conn, cancelled, "cancelled")
    return _result({**cancelled, "timezone": booking["timezone"]}, replay=False)
