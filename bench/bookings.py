"""Booking scenarios: POST /bookings through gunicorn, on distinct rooms (every request its own
hotel, room type and dates: the path's own cost) and under contention (16 clients on 4 rooms of
little inventory: lock waits and sold-out answers). Both check afterwards, from the database,
that no night was oversold and that every booking's nights were taken exactly once.

The scenarios own a fixed corner of the data set, far from what search and rates read (stays 150
to 180 days ahead, plan NRF, the first hotels): before each run they reset its inventory,
restrictions and prices to known values and delete the bench partner's earlier bookings, so
every run starts from the same state and knows each stay's price without asking."""

from __future__ import annotations

import json
import time

import psycopg
from psycopg.rows import dict_row

from .dataset import ROOM_TYPES
from .load import Request
from .scenarios import API, Context, http_scenario

PLAN = "NRF"                 # never carries nationality rules in the data set
FIRST_OFFSET = 150           # days ahead of the first bookable date
NIGHTS, RATE = 2, 100        # 1 adult, 2 nights at 100 a night in the hotel's currency
DISTINCT_HOTELS, DISTINCT_BLOCKS = 100, 10
DISTINCT_STOCK = 500
CONTENDED_HOTELS, CONTENDED_STOCK = 4, 25
WARMUP_BASE = 1_000_000      # warm-up indexes (negative) map above every measured one


def _stay_index(i: int) -> int:
    return i if i >= 0 else WARMUP_BASE - i


def _reset(ctx: Context, hotels: list[str], days: int, stock: int) -> dict:
    """Known ARI for the scenario's hotels (all room types, plan NRF) and no bench bookings."""
    first = ctx.stay_date(FIRST_OFFSET)
    last = ctx.stay_date(FIRST_OFFSET + days)
    properties = [code.split("-", 1)[1] for code in hotels]
    with psycopg.connect(ctx.database_url, row_factory=dict_row) as conn:
        ids = [r["id"] for r in conn.execute(
            "SELECT id FROM properties WHERE code = ANY(%s) ORDER BY id", (properties,))]
        partner = conn.execute("SELECT p.id FROM partners p JOIN partner_properties pp "
                               "ON pp.partner_id = p.id WHERE pp.hotel_code = %s",
                               (hotels[0],)).fetchone()["id"]
        conn.execute("DELETE FROM bookings WHERE partner_id = %s", (partner,))
        conn.execute("DELETE FROM booking_claims WHERE partner_id = %s", (partner,))
        conn.execute(
            "UPDATE room_type_days SET available = %s, closed = NULL, min_stay = NULL, "
            "max_stay = NULL, closed_to_arrival = NULL, closed_to_departure = NULL "
            "WHERE property_id = ANY(%s) AND date BETWEEN %s AND %s", (stock, ids, first, last))
        conn.execute(
            "UPDATE rate_plan_days d SET rate = %s, single_rate = NULL, extra_adult_rate = NULL, "
            "extra_child_rate = NULL, closed = NULL, min_stay = NULL, max_stay = NULL, "
            "closed_to_arrival = NULL, closed_to_departure = NULL FROM rate_plans rp "
            "WHERE rp.id = d.rate_plan_id AND rp.code = %s AND d.property_id = ANY(%s) "
            "AND d.date BETWEEN %s AND %s", (RATE, PLAN, ids, first, last))
        currencies = {r["code"]: r["currency"] for r in conn.execute(
            "SELECT code, currency FROM properties WHERE id = ANY(%s)", (ids,))}
    return {"property_ids": ids, "partner_id": partner, "first": first, "last": last,
            "currency": {h: currencies[p] for h, p in zip(hotels, properties)}}


def _body(ctx: Context, reference: str, hotel: str, room_type: str, offset: int,
          currency: str) -> bytes:
    return json.dumps({
        "partner_reference": reference, "hotel_code": hotel,
        "room_type_code": ctx.code(room_type), "rate_plan_code": ctx.code(PLAN),
        "check_in": ctx.stay_date(FIRST_OFFSET + offset).isoformat(),
        "check_out": ctx.stay_date(FIRST_OFFSET + offset + NIGHTS).isoformat(), "rooms": 1,
        "guests": [{"room_number": 1, "first_name": "Bench", "last_name": "Guest",
                    "is_adult": True, "nationality": "PT"}],
        "contact": {"first_name": "Bench", "email": "bench@example.com"},
        "total_amount": RATE * NIGHTS, "currency": currency}).encode()


def oversell_check(ctx: Context, state: dict, stock: int) -> dict:
    """From the database: every night of the scenario's rooms holds `stock` minus the rooms of
    the confirmed bookings covering it, never below zero."""
    with psycopg.connect(ctx.database_url, row_factory=dict_row) as conn:
        rows = conn.execute("""
            SELECT d.property_id, d.room_type_id, d.date, d.available,
                   coalesce(sum(b.rooms) FILTER (WHERE b.id IS NOT NULL), 0) AS booked
              FROM room_type_days d
              LEFT JOIN bookings b ON b.property_id = d.property_id
                   AND b.room_type_id = d.room_type_id AND b.status = 'confirmed'
                   AND d.date >= b.check_in AND d.date < b.check_out
                   AND b.partner_id = %s
             WHERE d.property_id = ANY(%s) AND d.date BETWEEN %s AND %s
             GROUP BY d.property_id, d.room_type_id, d.date, d.available""",
                            (state["partner_id"], state["property_ids"], state["first"],
                             state["last"])).fetchall()
        bookings = conn.execute("SELECT count(*) AS n FROM bookings WHERE partner_id = %s",
                                (state["partner_id"],)).fetchone()["n"]
    wrong = [r for r in rows if r["available"] != stock - r["booked"] or r["available"] < 0]
    return {"bookings": bookings, "nights_checked": len(rows), "oversold_nights":
            sum(1 for r in rows if r["available"] < 0), "inconsistent_nights": len(wrong),
            "ok": not wrong}


CHECKS: dict[str, dict] = {}


@http_scenario("book", f"POST /bookings, {NIGHTS} nights, each request its own hotel, room "
               "type and dates (no contention)", requests=2000, concurrency=4,
               verify=lambda ctx: oversell_check(ctx, CHECKS["book"], DISTINCT_STOCK),
               expect=lambda s: s == 201)
def book(ctx: Context):
    auth, hotels = ctx.bearer(), ctx.hotel_codes()[:DISTINCT_HOTELS]
    state = CHECKS["book"] = _reset(ctx, hotels, DISTINCT_BLOCKS * (NIGHTS + 1), DISTINCT_STOCK)
    run = f"{int(time.time()):x}"

    def make(i):
        j = _stay_index(i)
        hotel = hotels[j % DISTINCT_HOTELS]
        room_type = ROOM_TYPES[(j // DISTINCT_HOTELS) % len(ROOM_TYPES)][0]
        block = (j // (DISTINCT_HOTELS * len(ROOM_TYPES))) % DISTINCT_BLOCKS
        body = _body(ctx, f"BENCH-{run}-{j}", hotel, room_type, block * (NIGHTS + 1),
                     state["currency"][hotel])
        return Request("POST", f"{API}/bookings", body, auth)
    return make


@http_scenario("book-contended", f"POST /bookings, 16 clients on {CONTENDED_HOTELS} rooms of "
               f"{CONTENDED_STOCK}, overlapping stays: 201 until sold out, then 409",
               requests=1000, concurrency=16, warmup=0,
               verify=lambda ctx: oversell_check(ctx, CHECKS["book-contended"],
                                                 CONTENDED_STOCK),
               expect=lambda s: s in (201, 409))
def book_contended(ctx: Context):
    auth = ctx.bearer()
    hotels = ctx.hotel_codes()[DISTINCT_HOTELS:DISTINCT_HOTELS + CONTENDED_HOTELS]
    state = CHECKS["book-contended"] = _reset(ctx, hotels, NIGHTS + 1, CONTENDED_STOCK)
    run = f"{int(time.time()):x}"

    def make(i):
        j = _stay_index(i)
        hotel = hotels[j % CONTENDED_HOTELS]
        # Stays starting on the first or second night overlap on the second.
        body = _body(ctx, f"BENCH-C-{run}-{j}", hotel, "DBL", (j // CONTENDED_HOTELS) % 2,
                     state["currency"][hotel])
        return Request("POST", f"{API}/bookings", body, auth)
    return make
