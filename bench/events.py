"""Scenarios of the event log (docs/benchmarks.md, "Event log"): the latency from a commit to
its event being served by GET /events, and `book` without the event log's rows, so that a
booking is measured with and without them in one run, on the same data:

    make bench SCENARIOS="events-latency book book-events-off" ROUNDS=3 LABEL=events

`book-events-off` installs a BEFORE INSERT trigger on event_log that drops every row for its
measure, and removes it after (the INSERT's round trip, the receivers' lookup and the JSON are
still paid: what it removes is the row, its index entries and its WAL)."""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlencode, urlsplit

import psycopg
from psycopg.rows import dict_row

from connectivity.events import log

from . import bookings
from .ari import hotel_of
from .dataset import ALL_PARTNER
from .scenarios import API, Context, direct_scenario, http_scenario, poll_until_served


@direct_scenario("events-latency", "an event committed (as its cause's transaction does), then "
                 "polled for through GET /events every 10 ms until served: commit to served",
                 server="app", requests=200, concurrency=1, warmup=3)
def events_latency(ctx: Context):
    _switch_events(ctx, enable=True)  # should a book-events-off run have stopped half-way
    token = ctx.token("pull", signed=False)  # content.read: sees mapping.* events
    target = urlsplit(ctx.base_url)
    headers = {"Authorization": f"Bearer {token}"}

    def open_op():
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        db = psycopg.connect(ctx.database_url, row_factory=dict_row)

        def get(query: dict) -> dict:
            conn.request("GET", f"{API}/events?{urlencode(query)}", headers=headers)
            return json.loads(conn.getresponse().read())["data"]

        state = {"cursor": get({"start": "latest"})["next_cursor"]}

        def op(i):
            hotel = hotel_of(ctx, i)
            where = db.execute(
                "SELECT pp.property_id, pp.partner_id FROM partner_properties pp "
                "JOIN partners pa ON pa.id = pp.partner_id AND pa.code = %s "
                "WHERE pp.hotel_code = %s", (ALL_PARTNER, hotel)).fetchone()
            marker = f"{hotel}#{i}"
            log.record(db, **where, environment="sandbox", type="mapping.paused",
                       data={"hotel_code": marker})
            db.commit()
            return poll_until_served(get, state,
                                     lambda e: e["data"].get("hotel_code") == marker, 500,
                                     "events")
        return op
    return open_op


_DROP_ROWS = """
CREATE OR REPLACE FUNCTION bench_event_log_off() RETURNS trigger LANGUAGE plpgsql AS
$$ BEGIN RETURN NULL; END $$;
CREATE OR REPLACE TRIGGER bench_event_log_off BEFORE INSERT ON event_log
    FOR EACH ROW EXECUTE FUNCTION bench_event_log_off();
"""


def _switch_events(ctx: Context, enable: bool) -> None:
    with psycopg.connect(ctx.database_url) as conn:
        if enable:
            conn.execute("DROP TRIGGER IF EXISTS bench_event_log_off ON event_log")
            conn.execute("DROP FUNCTION IF EXISTS bench_event_log_off()")
        else:
            conn.execute(_DROP_ROWS)


def _events_back_on_and_no_oversell(ctx: Context) -> dict:
    _switch_events(ctx, enable=True)
    return bookings.oversell_check(ctx, bookings.CHECKS["book"], bookings.DISTINCT_STOCK)


@http_scenario("book-events-off", "book, with the event log's rows not written (switched back "
               "on once measured): against book in the same run, what writing the events costs",
               requests=2000, concurrency=4, verify=_events_back_on_and_no_oversell,
               expect=lambda s: s == 201)
def book_events_off(ctx: Context):
    _switch_events(ctx, enable=False)
    return bookings.book(ctx)
