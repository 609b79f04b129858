"""Scenarios of the hotel's acknowledgement (contract 13.2; docs/benchmarks.md, "Hotel
bookings"):

    make bench SCENARIOS="hotel-ack hotel-unacknowledged-page" ROUNDS=3 LABEL=hotel-bookings

- `hotel-ack`: POST /hotel-bookings/{confirmationNumber}/acknowledge by a channel manager, each
  request a booking not acknowledged yet (the first acknowledgement: the conditional UPDATE and
  the booking partner's booking.hotel_confirmed event), at 2 connections.
- `hotel-unacknowledged-page`: GET /hotel-bookings?acknowledged=false&limit=50 by a channel
  manager receiving the bookings of 20 hotels, which hold 100,000 bookings of which 1,000 are
  not acknowledged.

Each owns hotels of its own at the far end of the data set (BP0901-BP0924, which the other
scenarios do not book) and partners of its own, made here by a catalogue load of mappings only:
a reseller whose bookings they are, and a receiver per scenario. The bookings are written
directly (COPY), once, numbered as bookings made before a deployment's confirmation key are
(bookings/confirmation.py: the public permutation of the id, which no keyed number equals): the
listing's stay as they are between runs, the acknowledgement's are made unacknowledged again
before each run."""

from __future__ import annotations

import datetime as dt
import hashlib
import json

import psycopg
from psycopg.rows import dict_row

from connectivity.bookings.confirmation import number_text, permute
from connectivity.operator.catalog import load_catalog, parse_catalog

from .dataset import RATE_PLANS, ROOM_TYPES, mapped_code, property_code
from .load import Request
from .scenarios import API, Context, http_scenario

RESELLER, RECEIVER, ACK_RECEIVER = "bench-reseller", "bench-cm", "bench-cm-ack"
LISTED_HOTELS = [property_code(n) for n in range(901, 921)]
ACK_HOTELS = [property_code(n) for n in range(921, 925)]
STORED, UNACKNOWLEDGED = 100_000, 1_000
ACK_POOL = 6_000           # bookings the acknowledgement scenario acknowledges, one per request
PAGE = 50
WARMUP_BASE = 5_000        # warm-up indexes (negative) take the pool's last thousand


def _mappings(partner: str, hotels: list[str], receives: bool) -> dict:
    return {"code": partner, "name": f"Bench {partner}", "mappings": [
        {"property": hotel, "hotel_code": f"{partner}-{hotel}", "active": True,
         "receives_bookings": receives,
         "room_types": {r[0]: mapped_code(partner, r[0]) for r in ROOM_TYPES},
         "rate_plans": {p[0]: mapped_code(partner, p[0]) for p in RATE_PLANS}}
        for hotel in hotels]}


def _catalogue() -> dict:
    return parse_catalog(json.dumps({"partners": [
        _mappings(RESELLER, LISTED_HOTELS + ACK_HOTELS, False),
        _mappings(RECEIVER, LISTED_HOTELS, True), _mappings(ACK_RECEIVER, ACK_HOTELS, True)]}))


COLUMNS = ("id", "partner_id", "environment", "partner_reference", "confirmation_number",
           "request_hash", "status", "mapping_id", "property_id", "room_type_id",
           "rate_plan_id", "hotel_code", "room_type_code", "rate_plan_code", "check_in",
           "check_out", "rooms", "total_amount", "currency", "nights", "cancellation_policy",
           "policy_currency", "policy_fx_rate", "nationality", "guests", "contact",
           "created_at", "hotel_acknowledged_status", "hotel_status_acknowledged_at",
           "hotel_acknowledged_at", "hotel_confirmation_code", "hotel_acknowledgement_due")


def _write_bookings(conn, prefix: str, hotels: list[str], count: int,
                    unacknowledged_every: int | None) -> None:
    """`count` confirmed bookings of the reseller on `hotels` (round robin), one a second up to
    now, oldest first; every `unacknowledged_every`-th not acknowledged, the others
    acknowledged a minute after they were made (None: none acknowledged)."""
    partner = conn.execute("SELECT id FROM partners WHERE code = %s", (RESELLER,)).fetchone()
    homes = conn.execute(
        "SELECT p.code, pp.id AS mapping_id, pp.property_id, pp.hotel_code, p.currency, "
        "rt.id AS room_type_id, rp.id AS rate_plan_id, rp.cancellation_policy "
        "FROM partner_properties pp JOIN properties p ON p.id = pp.property_id "
        "JOIN room_types rt ON rt.property_id = p.id AND rt.code = 'DBL' "
        "JOIN rate_plans rp ON rp.property_id = p.id AND rp.code = 'BAR' "
        "WHERE pp.partner_id = %s AND p.code = ANY(%s) ORDER BY p.code",
        (partner["id"], hotels)).fetchall()
    ids = [r["nextval"] for r in conn.execute(
        "SELECT nextval('bookings_id_seq') FROM generate_series(1, %s)", (count,))]
    now = dt.datetime.now(dt.timezone.utc)
    check_in = dt.date.today() + dt.timedelta(days=200)
    nights = json.dumps([{"date": (check_in + dt.timedelta(days=d)).isoformat(),
                          "amount": "100.00"} for d in range(2)])
    guests = json.dumps([{"room_number": 1, "first_name": "Bench", "last_name": "Guest",
                          "is_adult": True, "nationality": "PT"}])
    contact = json.dumps({"first_name": "Bench", "email": "bench@example.com"})
    with conn.cursor().copy(f"COPY bookings ({', '.join(COLUMNS)}) FROM STDIN") as copy:
        for k, booking_id in enumerate(ids):
            home = homes[k % len(homes)]
            made = now - dt.timedelta(seconds=count - k)
            waiting = unacknowledged_every is None or k % unacknowledged_every == 0
            acknowledged = None if waiting else made + dt.timedelta(minutes=1)
            copy.write_row((
                booking_id, partner["id"], "sandbox", f"{prefix}-{k}",
                number_text(permute(booking_id)), hashlib.sha256(str(booking_id).encode())
                .digest(), "confirmed", home["mapping_id"], home["property_id"],
                home["room_type_id"], home["rate_plan_id"], home["hotel_code"],
                mapped_code(RESELLER, "DBL"), mapped_code(RESELLER, "BAR"), check_in,
                check_in + dt.timedelta(days=2), 1, "200.00", home["currency"], nights,
                json.dumps(home["cancellation_policy"]), home["currency"], 1, "PT", guests,
                contact, made, None if waiting else "confirmed", acknowledged, acknowledged,
                None if waiting else f"H-{k}", waiting))
    with conn.cursor().copy("COPY booking_claims (partner_id, environment, partner_reference, "
                            "booking_id, property_id) FROM STDIN") as copy:
        for k, booking_id in enumerate(ids):
            copy.write_row((partner["id"], "sandbox", f"{prefix}-{k}", booking_id,
                            homes[k % len(homes)]["property_id"]))


def _ensure(ctx: Context, prefix: str, hotels: list[str], count: int,
            unacknowledged_every: int | None) -> list[int]:
    """The scenario's partners and bookings (written when their count differs); the hotels'
    property ids."""
    with psycopg.connect(ctx.database_url, row_factory=dict_row) as conn:
        load_catalog(conn, _catalogue())
        ids = [r["id"] for r in conn.execute(
            "SELECT id FROM properties WHERE code = ANY(%s) ORDER BY id", (hotels,))]
        partner = conn.execute("SELECT id FROM partners WHERE code = %s",
                               (RESELLER,)).fetchone()["id"]
        stored = conn.execute(
            "SELECT count(*) AS n FROM bookings WHERE partner_id = %s AND property_id = ANY(%s)",
            (partner, ids)).fetchone()["n"]
        if stored != count:
            conn.execute("DELETE FROM bookings WHERE partner_id = %s AND property_id = ANY(%s)",
                         (partner, ids))
            conn.execute("DELETE FROM booking_claims WHERE partner_id = %s "
                         "AND partner_reference LIKE %s", (partner, f"{prefix}-%"))
            _write_bookings(conn, prefix, hotels, count, unacknowledged_every)
            conn.commit()
            conn.execute("ANALYZE bookings")
    return ids


def _unacknowledged(ctx: Context, receiver: str) -> int:
    with psycopg.connect(ctx.database_url, row_factory=dict_row) as conn:
        return conn.execute(
            "SELECT count(*) AS n FROM partner_properties pp JOIN partners pa "
            "ON pa.id = pp.partner_id AND pa.code = %s JOIN bookings b "
            "ON b.property_id = pp.property_id AND b.partner_id <> pp.partner_id "
            "WHERE pp.receives_bookings AND b.hotel_acknowledgement_due",
            (receiver,)).fetchone()["n"]


def _listing_unchanged(ctx: Context) -> dict:
    left = _unacknowledged(ctx, RECEIVER)
    return {"unacknowledged": left, "ok": left == UNACKNOWLEDGED}


@http_scenario("hotel-unacknowledged-page",
               f"GET /hotel-bookings?acknowledged=false&limit={PAGE}: a channel manager of 20 "
               f"hotels holding {STORED:,} bookings, {UNACKNOWLEDGED:,} not acknowledged",
               requests=2000, concurrency=2, verify=_listing_unchanged,
               expect=lambda s: s == 200)
def hotel_unacknowledged_page(ctx: Context):
    _ensure(ctx, "HBL", LISTED_HOTELS, STORED, STORED // UNACKNOWLEDGED)
    request = Request("GET", f"{API}/hotel-bookings?acknowledged=false&limit={PAGE}",
                      auth=ctx.bearer("push", partner=RECEIVER))
    return lambda i: request


POOL: dict = {}


def _acknowledged_once(ctx: Context) -> dict:
    """Every request acknowledged a booking of its own, and each acknowledgement wrote one
    booking.hotel_confirmed event for the reseller."""
    acknowledged = ACK_POOL - _unacknowledged(ctx, ACK_RECEIVER)
    with psycopg.connect(ctx.database_url, row_factory=dict_row) as conn:
        events = conn.execute(
            "SELECT count(*) AS n FROM event_log e JOIN partners pa ON pa.id = e.partner_id "
            "WHERE pa.code = %s AND e.type = 'booking.hotel_confirmed' AND e.created_at >= %s",
            (RESELLER, POOL["since"])).fetchone()["n"]
    return {"acknowledged": acknowledged, "events": events,
            "ok": acknowledged > 0 and events == acknowledged}


@http_scenario("hotel-ack", "POST /hotel-bookings/{confirmationNumber}/acknowledge, each "
               "request the first acknowledgement of its own booking (conditional UPDATE, the "
               "booking partner's booking.hotel_confirmed event)", requests=2000,
               concurrency=2, verify=_acknowledged_once, expect=lambda s: s == 200)
def hotel_ack(ctx: Context):
    ids = _ensure(ctx, "HBA", ACK_HOTELS, ACK_POOL, None)
    POOL["since"] = dt.datetime.now(dt.timezone.utc)
    with psycopg.connect(ctx.database_url, row_factory=dict_row) as conn:
        conn.execute(
            "UPDATE bookings SET hotel_acknowledged_status = NULL, "
            "hotel_status_acknowledged_at = NULL, hotel_acknowledged_at = NULL, "
            "hotel_confirmation_code = NULL, hotel_acknowledgement_due = true "
            "WHERE property_id = ANY(%s) "
            "AND hotel_acknowledged_status IS NOT NULL", (ids,))
        POOL["numbers"] = [r["confirmation_number"] for r in conn.execute(
            "SELECT confirmation_number FROM bookings WHERE property_id = ANY(%s) ORDER BY id",
            (ids,))]
    numbers, auth = POOL["numbers"], ctx.bearer("push", partner=ACK_RECEIVER)

    def make(i):
        # Past the pool (REQUESTS above it) a request repeats an acknowledgement.
        number = numbers[(i if i >= 0 else WARMUP_BASE - i) % len(numbers)]
        body = json.dumps({"status": "confirmed", "hotel_confirmation_code": f"B-{i}"}).encode()
        return Request("POST", f"{API}/hotel-bookings/{number}/acknowledge", body, auth)
    return make
