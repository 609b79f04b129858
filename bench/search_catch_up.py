"""Where a search read model's catch-up spends its time (docs/benchmarks.md, "Search at
look-to-book scale"): one process, one model holding the first N hotels of the bench data set,
a thread committing 50 rate changes a second to them (as `search-freshness`'s stream does, days
past those `search` reads), each followed by the read fence's move (store/read_fence.py, in
Redis: REDIS_URL, default db 13 of the local one) naming its hotel as a writer's does (or
naming none with `--unnamed`: every catch-up then reads every property's changes), and a
thread calling `refresh()` every 10 ms as a search would (the freshness scenario's poller; `--every
S`: every S seconds, so that each catch-up reads many hotels' changes, as under many writers),
with the token read as a request reads it. The model has the web's own catch-up connection
and settings (read_model/building.py: on Citus one cached connection a worker; a full
catch-up every SEARCH_MODEL_REFRESH_SECONDS). Per catch-up: the horizons read, the changes
read (replay less apply), the changed days read (`model_days`) and the whole; how often it
caught up; this process's CPU per catch-up; and commit -> applied for every change of the
stream.

    python -m bench.search_catch_up postgresql://...:9840/pcs_bench [hotels] [seconds] [--unnamed] [--every S]

It times the model's own methods by wrapping them, so it runs against the code of the checkout
it is started from."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import sys
import threading
import time

import psycopg
import redis

from connectivity.availability import read_model as sm
from connectivity.availability.read_model import catching_up as catching
from connectivity.availability.read_model.building import search_model_of
from connectivity.availability.read_model.catching_up import CatchingUp
from connectivity.settings import Settings
from connectivity.store.database import Database
from connectivity.store.read_fence import ReadFence

STREAM_PER_SECOND = 50
FAR_DAYS = 240  # past the days `search` and `rates` read (bench/search_fresh.py)


def main(url: str, hotels: int = 300, seconds: float = 40.0, named: bool = True,
         every: float = 0.01) -> dict:
    db = Database(url, max_size=8)
    redis_client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/13"))
    read_fence = ReadFence(redis_client, f"bench-catch-up-{os.getpid()}:")
    model = search_model_of(Settings(database_url=url, redis_url="", secret_key="",
                                     search_model_loading="inline"), db, read_fence.read_since)
    with db.connection() as conn:
        ids = [r["id"] for r in conn.execute("SELECT id FROM properties ORDER BY id LIMIT %s",
                                             (hotels,))]
        start = conn.execute("SELECT min(date) AS d FROM room_type_days").fetchone()["d"]
    began = time.monotonic()
    for at in range(0, len(ids), 25):
        with db.connection() as conn:
            if model._positions is None:
                model._catch_up(conn)
            model._load(conn, ids[at:at + 25])
    print(f"loaded {model.held()} hotels in {time.monotonic() - began:.1f} s", flush=True)

    timing: dict[str, list[float]] = {"horizons": [], "replay": [], "apply": [], "days": [],
                                      "catch_up": []}
    applied: dict[tuple[int, dt.date], list[float]] = {}  # when a hotel's day was reloaded

    def timed(name, f):
        def run(*args, **kwargs):
            t = time.perf_counter()
            try:
                return f(*args, **kwargs)
            finally:
                timing[name].append(time.perf_counter() - t)
        return run

    catching.horizons_and_next = timed("horizons", catching.horizons_and_next)
    sm.SearchModel._days = staticmethod(timed("days", CatchingUp.__dict__["_days"].__func__))
    sm.SearchModel._catch_up = timed("catch_up", sm.SearchModel._catch_up)
    sm.SearchModel._replay = timed("replay", sm.SearchModel._replay)
    apply = sm.SearchModel._apply

    def apply_noting(self, conn, changes):
        changes = list(changes)
        t = time.perf_counter()
        apply(self, conn, changes)
        timing["apply"].append(time.perf_counter() - t)
        now = time.monotonic()
        for change in changes:
            applied.setdefault((change["property_id"], change["from_date"]), []).append(now)
    sm.SearchModel._apply = apply_noting

    model.refresh(None)
    stop = threading.Event()
    commits: list[tuple[int, dt.date, float]] = []

    def fence() -> bytes:  # what a request would read
        return redis_client.get(read_fence.key)

    def stream():
        rng = random.Random(7)
        with psycopg.connect(url, autocommit=True) as writer:
            while not stop.is_set():
                t = time.monotonic()
                pid = rng.choice(ids)
                day = start + dt.timedelta(days=FAR_DAYS + rng.randrange(30))
                writer.execute(
                    "UPDATE rate_plan_days SET rate = CASE WHEN rate IS NULL THEN NULL "
                    "WHEN mod(rate * 100, 2) = 0 THEN rate + 0.01 ELSE rate - 0.01 END "
                    "WHERE property_id = %s AND date = %s", (pid, day))
                commits.append((pid, day, time.monotonic()))
                read_fence.move([pid] if named else None)
                time.sleep(max(0.0, 1 / STREAM_PER_SECOND - (time.monotonic() - t)))

    def poll():
        while not stop.is_set():
            model.refresh(fence())
            time.sleep(every)

    threads = [threading.Thread(target=stream), threading.Thread(target=poll)]
    cpu = time.process_time()
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    cpu = time.process_time() - cpu
    model.refresh(None)  # one more catch-up for the stream's last changes

    def ms(values, q):
        if not values:
            return None
        values = sorted(values)
        return round(values[min(len(values) - 1, int(q * len(values)))] * 1000, 1)

    # Each commit is shown by the first reload of its hotel's day after it.
    late = [min(a for a in applied[(p, d)] if a >= c) - c for p, d, c in commits
            if any(a >= c for a in applied.get((p, d), ()))]
    out = {"catch_ups_per_second": round(len(timing["catch_up"]) / seconds, 2),
           "process_cpu_ms_per_catch_up": round(cpu * 1000 / max(1, len(timing["catch_up"])), 1)}
    for name, values in timing.items():
        out[name] = {"n": len(values), "p50": ms(values, .5), "p90": ms(values, .9),
                     "p99": ms(values, .99), "max": ms(values, 1)}
    out["commit_to_applied"] = {"n": len(late), "p50": ms(late, .5), "p90": ms(late, .9),
                                "p99": ms(late, .99), "max": ms(late, 1),
                                "not_applied": len(commits) - len(late)}
    redis_client.delete(read_fence.key, read_fence.named_key)
    print(json.dumps(out), flush=True)
    return out


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--unnamed"]
    every = 0.01
    if "--every" in args:
        at = args.index("--every")
        every = float(args[at + 1])
        del args[at:at + 2]
    main(args[0], *(f(a) for f, a in zip((int, float), args[1:])),
         named="--unnamed" not in sys.argv, every=every)
