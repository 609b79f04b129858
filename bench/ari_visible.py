"""Scenarios of what ARI partners can see (docs/benchmarks.md, "ARI push, read-back, dry run,
change feed"): the read-back (GET /ari), the dry run of a 5,000-item push, a 500-change page of
the change feed, the feed's latency from a commit to the change being served, and switches that
turn the feed's triggers off and on, so that `ari-apply` and `book` can be measured with and
without the feed on the same data:

    make bench SCENARIOS="feed-off ari-apply book" LABEL=feed-off
    make bench SCENARIOS="feed-on ari-apply book" LABEL=feed-on
"""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlencode, urlsplit

import psycopg

from connectivity.availability.feed_cursor import CursorSigner, Position

from .ari import ari_body, hotel_of
from .dataset import ALL_PARTNER
from .load import Request
from .scenarios import API, Context, direct_scenario, http_scenario, poll_until_served

READBACK_DAYS = 366
FEED_PAGE = 500


@http_scenario("ari-readback", f"GET /ari, one hotel, 10 room types x 3 rate plans x "
               f"{READBACK_DAYS} days, push key", requests=200, concurrency=1, warmup=5)
def ari_readback(ctx: Context):
    auth = ctx.bearer("push")
    first, last = ctx.stay_date(0), ctx.stay_date(READBACK_DAYS - 1)

    def make(i):
        query = urlencode({"hotel_code": hotel_of(ctx, i), "from_date": first.isoformat(),
                           "to_date": last.isoformat()})
        return Request("GET", f"{API}/ari?{query}", b"", auth)
    return make


@http_scenario("ari-dry-run", "PUT /ari?dry_run=true, 5,000 items, signed push key: judged and "
               "compared, nothing stored (200)", requests=40, concurrency=1, warmup=2)
def ari_dry_run(ctx: Context):
    auth = ctx.signed()
    bodies = {}

    def make(i):
        if i not in bodies:
            bodies[i] = ari_body(ctx, i + 700)
        return Request("PUT", f"{API}/ari?dry_run=true", bodies[i], auth)
    return make


def _partner_id(ctx: Context) -> int:
    with psycopg.connect(ctx.database_url) as conn:
        return conn.execute("SELECT id FROM partners WHERE code = %s",
                            (ALL_PARTNER,)).fetchone()[0]


@http_scenario("changes-page", f"GET /availability/changes, a full page of {FEED_PAGE} changes "
               "from the start of the log, pull key", requests=400, concurrency=1, warmup=10)
def changes_page(ctx: Context):
    with psycopg.connect(ctx.database_url) as conn:
        logged = conn.execute("SELECT count(*) FROM change_log").fetchone()[0]
    if logged < FEED_PAGE + 1:
        raise RuntimeError(f"change_log holds {logged} rows; a fresh data set (--regenerate) "
                           "logs its load")
    signer = CursorSigner(ctx.settings["SECRET_KEY"])
    cursor = signer.dump(_partner_id(ctx), "sandbox", {0: Position(0, 0)})
    auth = ctx.bearer()
    request = Request("GET", f"{API}/availability/changes?"
                      + urlencode({"cursor": cursor, "limit": FEED_PAGE}), b"", auth)
    return lambda i: request


@direct_scenario("changes-latency", "a change committed, then polled for through GET "
                 "/availability/changes every 10 ms until served: commit to served",
                 server="app", requests=200, concurrency=1, warmup=3)
def changes_latency(ctx: Context):
    token = ctx.token("pull", signed=False)
    target = urlsplit(ctx.base_url)
    headers = {"Authorization": f"Bearer {token}"}
    day = ctx.stay_date(400)  # past the generated year and the ARI scenarios' days

    def open_op():
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        db = psycopg.connect(ctx.database_url, autocommit=True)

        def get(query: dict) -> dict:
            conn.request("GET", f"{API}/availability/changes?{urlencode(query)}",
                         headers=headers)
            return json.loads(conn.getresponse().read())["data"]

        state = {"cursor": get({})["next_cursor"]}

        def op(i):
            hotel = hotel_of(ctx, i)
            db.execute(
                "INSERT INTO room_type_days (property_id, date, room_type_id, available) "
                "SELECT pp.property_id, %s, rt.id, %s FROM partner_properties pp "
                "JOIN partners pa ON pa.id = pp.partner_id AND pa.code = 'bench-all' "
                "JOIN room_types rt ON rt.property_id = pp.property_id "
                "WHERE pp.hotel_code = %s AND rt.code = 'DBL' "
                # Always a change (an upsert that changes nothing logs nothing).
                "ON CONFLICT (property_id, date, room_type_id) "
                "DO UPDATE SET available = mod(room_type_days.available + 1, 10)",
                (day, i % 9 + 1, hotel))
            return poll_until_served(
                get, state, lambda c: c["hotel_code"] == hotel
                and c["from_date"] == day.isoformat(), 1000, "changes")
        return op
    return open_op


def _switch_feed(ctx: Context, enable: bool) -> None:
    verb = "ENABLE" if enable else "DISABLE"
    with psycopg.connect(ctx.database_url) as conn:
        for table in ("room_type_days", "rate_plan_days"):
            conn.execute(f"ALTER TABLE {table} {verb} TRIGGER USER")


@direct_scenario("feed-off", "turns the change feed's day-table triggers off (for ari-apply "
                 "and book without the feed); one no-op", requests=1, concurrency=1, warmup=0)
def feed_off(ctx: Context):
    _switch_feed(ctx, enable=False)
    return lambda: (lambda i: "ok")


@direct_scenario("feed-on", "turns the change feed's day-table triggers back on", requests=1,
                 concurrency=1, warmup=0)
def feed_on(ctx: Context):
    _switch_feed(ctx, enable=True)
    return lambda: (lambda i: "ok")
