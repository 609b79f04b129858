"""Scenarios of the event log (docs/benchmarks.md, "Event log"): the latency from a commit to
its event being served by GET /events, and switches that keep the event log's rows from being
written, so that `book` can be measured with and without them on the same data:

    make bench SCENARIOS="events-off book events-on book" LABEL=events

`events-off` installs a BEFORE INSERT trigger on event_log that drops every row (the INSERT's
round trip, the receivers' lookup and the JSON are still paid: what it removes is the row, its
index entries and WAL); `events-on` drops it."""

from __future__ import annotations

import http.client
import json
import time
from urllib.parse import urlencode, urlsplit

import psycopg
from psycopg.rows import dict_row

from connectivity.events import log

from .ari import hotel_of
from .dataset import ALL_PARTNER
from .scenarios import API, Context, direct_scenario


@direct_scenario("events-latency", "an event committed (as its cause's transaction does), then "
                 "polled for through GET /events every 10 ms until served: commit to served",
                 server="app", requests=200, concurrency=1, warmup=3)
def events_latency(ctx: Context):
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
            committed = time.monotonic()
            while time.monotonic() - committed < 30:
                data = get({"cursor": state["cursor"], "limit": 500})
                state["cursor"] = data["next_cursor"]
                if any(e["data"].get("hotel_code") == marker for e in data["events"]):
                    return "ok"
                if not data["has_more"]:
                    time.sleep(0.01)
            return "timeout"
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


@direct_scenario("events-off", "keeps the event log's rows from being written (for book "
                 "without them); one no-op", requests=1, concurrency=1, warmup=0)
def events_off(ctx: Context):
    _switch_events(ctx, enable=False)
    return lambda: (lambda i: "ok")


@direct_scenario("events-on", "writes the event log's rows again", requests=1, concurrency=1,
                 warmup=0)
def events_on(ctx: Context):
    _switch_events(ctx, enable=True)
    return lambda: (lambda i: "ok")
