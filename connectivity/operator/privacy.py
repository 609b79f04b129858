"""Guest data that expires (`privacy purge`; docs/operations.md, "Guest data that expires"):
the personal fields of bookings and pushed reservations whose stay ended more than N days ago
are replaced, and the row marked (`guest_data_purged_at`); the commercial record stays (dates,
amounts, references, policy, status, the inventory taken).

Personal: a booking's guests, contact, nationality, special requests and cancel reason; a
reservation's guests, contact and special requests, in its state and in every delivery kept of
it, and a kept cancel's reason. A reservation never received (only a cancel or a modify of it
arrived) has no stay of its own and holds no guests: it is left as it is. The booking's events
(booking.* for the booker, hotel_booking.* for the hotel's receivers) and every webhook delivery
of one keep the booking as it was read: their `data.booking` is purged by the same horizon (its
check-out) and shows then what GET /bookings/{reference} shows of a purged booking. Events go
per hotel, as the log is distributed; deliveries per partner, as they are.

Safe while the service runs: every chunk is one short transaction on one hotel (or, for
deliveries, one partner), and each statement is a conditional update (only rows not yet purged
whose stay ended before the cutoff), so a concurrent cancel or modify is judged as it
committed. Idempotent: a purged row no longer matches. Runs its own transactions, one per
chunk, rather than one `Database.run` for the whole purge: a first purge covers years of
stays, and no row should stay locked that long."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from connectivity.bookings.records import HOTEL_BOOKING_FIELDS, PURGED_FIELDS
from connectivity.bookings.schemas import BookingSchema
from connectivity.store.database import Database
from connectivity.store.queries import queries

DEFAULT_CHUNK_SIZE = 500


@dataclass
class PurgeReport:
    cutoff: dt.date  # stays that ended before this day
    bookings: int = 0
    reservations: int = 0
    hotels: int = 0
    events: int = 0
    deliveries: int = 0  # webhook deliveries


def purge_cutoff(now: dt.datetime, after_checkout_days: int) -> dt.date:
    """Stays that ended more than `after_checkout_days` days before today (UTC) end before
    this day."""
    return now.astimezone(dt.timezone.utc).date() - dt.timedelta(days=after_checkout_days)


def purge_guest_data(db: Database, *, after_checkout_days: int, now: dt.datetime,
                     chunk_size: int = DEFAULT_CHUNK_SIZE) -> PurgeReport:
    if after_checkout_days < 1:
        raise ValueError("--after-checkout-days must be at least 1")
    if chunk_size < 1:
        raise ValueError("--chunk-size must be at least 1")
    report = PurgeReport(purge_cutoff(now, after_checkout_days))
    day = report.cutoff.isoformat()
    purged = json.dumps(purged_booking_fields(now))
    for hotel in db.run(_hotels_due, {"cutoff": report.cutoff, "cutoff_day": day}):
        report.hotels += 1
        report.bookings += _in_chunks(db, _purge_bookings, chunk_size, hotel, report.cutoff, now)
        report.reservations += _in_chunks(db, _purge_reservations, chunk_size,
                                          hotel, report.cutoff, now)
        report.events += _in_chunks(db, _purge_events, chunk_size, hotel, day, purged)
    for partner in db.run(_partners_due, day):
        report.deliveries += _in_chunks(db, _purge_deliveries, chunk_size, partner, day, purged)
    return report


_PURGE_MARKERS = ("guest_data_purged", "guest_data_purged_at")
_PURGED_BOOKING = BookingSchema(only=PURGED_FIELDS + _PURGE_MARKERS)


def purged_booking_fields(purged_at: dt.datetime) -> dict[str, dict[str, Any]]:
    """Per booking event type, what its `data.booking` shows once purged: booking.* as
    GET /bookings/{reference} answers a purged booking (the personal fields null, never empty,
    and the marker); hotel_booking.* the personal fields it carries, null, and the same
    marker, so that its receiver can tell a purge from a booking without guests."""
    booking = _PURGED_BOOKING.dump({**dict.fromkeys(PURGED_FIELDS), "guest_data_purged": True,
                                    "guest_data_purged_at": purged_at.astimezone(dt.timezone.utc)})
    hotel_booking = {name: value for name, value in booking.items()
                     if name in HOTEL_BOOKING_FIELDS or name in _PURGE_MARKERS}
    return {"booking.confirmed": booking, "booking.cancelled": booking,
            "booking.hotel_confirmed": booking,
            "hotel_booking.confirmed": hotel_booking, "hotel_booking.cancelled": hotel_booking}


def _in_chunks(db: Database, purge_chunk: Callable[..., int], chunk_size: int, *args) -> int:
    """`purge_chunk(conn, *args, chunk_size)`, each chunk its own transaction, until one comes
    short; how many rows they purged."""
    total = 0
    while (purged := db.run(purge_chunk, *args, chunk_size)):
        total += purged
        if purged < chunk_size:
            break
    return total


def _hotels_due(conn, cutoff: dict) -> list[int]:
    return [r["property_id"] for r in queries().operator.hotels_with_guest_data_due(conn, **cutoff)]


def _purge_bookings(conn, property_id: int, cutoff: dt.date, now: dt.datetime,
                    chunk_size: int) -> int:
    return len(queries().operator.purge_booking_guest_data(
        conn, property_id=property_id, cutoff=cutoff, purged_at=now, chunk_size=chunk_size))


def _purge_reservations(conn, property_id: int, cutoff: dt.date, now: dt.datetime,
                        chunk_size: int) -> int:
    """A chunk of reservations and their kept deliveries, together."""
    q = queries().operator
    ids = [r["id"] for r in q.purge_reservation_guest_data(
        conn, property_id=property_id, cutoff_day=cutoff.isoformat(), purged_at=now,
        chunk_size=chunk_size)]
    if ids:
        q.purge_delivery_guest_data(conn, property_id=property_id, reservation_ids=ids)
    return len(ids)


def _purge_events(conn, property_id: int, cutoff_day: str, purged: str, chunk_size: int) -> int:
    return len(queries().operator.purge_event_guest_data(
        conn, property_id=property_id, cutoff_day=cutoff_day, purged=purged,
        chunk_size=chunk_size))


def _partners_due(conn, cutoff_day: str) -> list[int]:
    return [r["partner_id"] for r in queries().operator.partners_with_deliveries_due(
        conn, cutoff_day=cutoff_day)]


def _purge_deliveries(conn, partner_id: int, cutoff_day: str, purged: str,
                      chunk_size: int) -> int:
    return len(queries().operator.purge_webhook_delivery_guest_data(
        conn, partner_id=partner_id, cutoff_day=cutoff_day, purged=purged,
        chunk_size=chunk_size))
