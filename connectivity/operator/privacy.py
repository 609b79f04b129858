"""Guest data that expires (`privacy purge`; docs/operations.md, "Guest data that expires"):
the personal fields of bookings and pushed reservations whose stay ended more than N days ago
are replaced, and the row marked (`guest_data_purged_at`); the commercial record stays (dates,
amounts, references, policy, status, the inventory taken).

Personal: a booking's guests, contact, nationality, special requests and cancel reason; a
reservation's guests, contact and special requests, in its state and in every delivery kept of
it, and a kept cancel's reason. A reservation never received (only a cancel or a modify of it
arrived) has no stay of its own and holds no guests: it is left as it is.

Safe while the service runs: every chunk is one short transaction on one hotel, and each
statement is a conditional update (only rows not yet purged whose stay ended before the
cutoff), so a concurrent cancel or modify is judged as it committed. Idempotent: a purged row no
longer matches. Runs its own transactions, one per chunk, rather than one `Database.run` for the
whole purge: a first purge covers years of stays, and no row should stay locked that long."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from connectivity.store.database import Database
from connectivity.store.queries import queries

DEFAULT_CHUNK_SIZE = 500


@dataclass
class PurgeReport:
    cutoff: dt.date  # stays that ended before this day
    bookings: int = 0
    reservations: int = 0
    hotels: int = 0


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
    cutoff = {"cutoff": report.cutoff, "cutoff_day": report.cutoff.isoformat()}
    for hotel in db.run(_hotels_due, cutoff):
        report.hotels += 1
        while (purged := db.run(_purge_bookings, hotel, report.cutoff, now, chunk_size)):
            report.bookings += purged
            if purged < chunk_size:
                break
        while (purged := db.run(_purge_reservations, hotel, report.cutoff, now, chunk_size)):
            report.reservations += purged
            if purged < chunk_size:
                break
    return report


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
