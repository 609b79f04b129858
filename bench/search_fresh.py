"""`search-freshness` and `rates-freshness`: how long a committed change takes to show in POST
/availability/search and POST /availability/rates (both answered from the read model), under a
stream of ARI writes (docs/benchmarks.md, "Search"). Each operation reads one hotel for one
night, closes every room type of it that night (or opens them again, when nothing was
available), commits, moves the read fence as a writer does before it answers
(connectivity/store/read_fence.py), then reads every 10 ms until the answer shows the change:
its time is commit to shown plus the one read before the commit (an upper bound of commit to
shown). Contract 13.1 makes it the first read after the move (`reads_to_show`).
Meanwhile a thread commits rate changes to random hotels, 50 a second, through the same
day-table triggers as an ARI apply, so that the model replays a stream of changes while it is
measured."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from collections.abc import Callable
from datetime import date, timedelta
from urllib.parse import urlsplit

import psycopg
import redis

from connectivity.store.read_fence import ReadFence

from .ari import hotel_of
from .discovery import wait_for_search_model
from .scenarios import API, Context, direct_scenario

STREAM_PER_SECOND = 50
# Past the stays of `search` and `rates` (days 1-75), inside the generated year: the scenario
# leaves the days those read, and so the answers' digest, as generated.
FAR_DAYS = 200


@direct_scenario("search-freshness", "a night closed or opened, committed, then searched for "
                 "every 10 ms until shown, under 50 ARI writes a second: commit to shown",
                 server="app", requests=200, concurrency=1, warmup=3)
def search_freshness(ctx: Context):
    def request(hotel: str, night: date) -> tuple[str, dict]:
        return "search", {"hotel_codes": [hotel], **_night(night)}

    def available(data: dict) -> bool:
        return bool(data["hotels"]) and data["hotels"][0]["available"]
    return _freshness(ctx, request, available)


@direct_scenario("rates-freshness", "a night closed or opened, committed, then its rates read "
                 "every 10 ms until shown, under 50 ARI writes a second: commit to shown",
                 server="app", requests=200, concurrency=1, warmup=3)
def rates_freshness(ctx: Context):
    def request(hotel: str, night: date) -> tuple[str, dict]:
        return "rates", {"hotel_code": hotel, **_night(night)}

    def available(data: dict) -> bool:  # any room left that night
        return any(plan["nights"][0]["available_rooms"] for room in data["room_types"]
                   for plan in room["rate_plans"])
    return _freshness(ctx, request, available)


def _night(night: date) -> dict:
    return {"check_in": night.isoformat(),
            "check_out": (night + timedelta(days=1)).isoformat(), "rooms": 1,
            "occupancy": [{"adults": 1}]}


def _freshness(ctx: Context, request: Callable, shows_available: Callable):
    wait_for_search_model(ctx.base_url, len(ctx.hotel_codes()))
    token = ctx.token("pull", signed=False)
    target = urlsplit(ctx.base_url)
    stop = threading.Event()
    stream = threading.Thread(target=_ari_stream, args=(ctx, stop), daemon=True)
    stream.start()
    def finish():
        stop.set()
        stream.join(5)
    ctx.finish(finish)

    def open_op():
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        db = psycopg.connect(ctx.database_url, autocommit=True)
        fence = ReadFence(redis.Redis.from_url(ctx.settings["REDIS_URL"]),
                          ctx.settings["REDIS_PREFIX"])

        def op(i):
            hotel = hotel_of(ctx, i * 13)
            night = ctx.stay_date(FAR_DAYS + abs(i) % 30)
            operation, body = request(hotel, night)
            body = json.dumps(body)

            def available() -> bool:
                conn.request("POST", f"{API}/availability/{operation}", body,
                             {"Authorization": f"Bearer {token}",
                              "Content-Type": "application/json"})
                return shows_available(json.loads(conn.getresponse().read())["data"])

            was = available()
            # Close every room type that night when it shows available, else open them.
            db.execute(
                "UPDATE room_type_days d SET available = %s, closed = false "
                "FROM partner_properties pp JOIN partners pa ON pa.id = pp.partner_id "
                "WHERE pa.code = 'bench-all' AND pp.hotel_code = %s "
                "AND d.property_id = pp.property_id AND d.date = %s",
                (0 if was else 5, hotel, night))
            committed = time.monotonic()
            fence.move()
            reads = 0
            while time.monotonic() - committed < 30:
                reads += 1
                if available() != was:
                    return "ok" if reads == 1 else f"shown at read {reads}"
                time.sleep(0.01)
            return "timeout"
        return op
    return open_op


def _ari_stream(ctx: Context, stop: threading.Event) -> None:
    """Rate changes to random hotels and nights, committed one by one."""
    rng = random.Random(7)
    with psycopg.connect(ctx.database_url, autocommit=True) as db:
        ids = [r[0] for r in db.execute("SELECT id FROM properties ORDER BY id")]
        while not stop.is_set():
            began = time.monotonic()
            db.execute(
                "UPDATE rate_plan_days SET rate = CASE WHEN rate IS NULL THEN NULL "
                "WHEN mod(rate * 100, 2) = 0 THEN rate + 0.01 ELSE rate - 0.01 END "
                "WHERE property_id = %s AND date = %s",
                (rng.choice(ids), ctx.stay_date(FAR_DAYS + 40 + rng.randrange(30))))
            time.sleep(max(0.0, 1 / STREAM_PER_SECOND - (time.monotonic() - began)))
