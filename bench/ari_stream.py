"""ARI at channel-manager volume (docs/benchmarks.md, "ARI at channel-manager volume"): a stream
of small `PUT /ari` batches from 8 clients, and whether the Procfile's worker keeps up with what
the web accepts.

Channel managers send deltas: a rate here, an availability there, a few per property a minute
across many properties. So batch i goes to hotel i mod 1,000 (consecutive batches to different
hotels: the worker's grouping of a hotel's waiting batches helps only as far as a backlog builds
up), on dates past those `ari.py` writes.

- `ari-stream`: 2,000 one-item batches with one worker running; `ari-stream-mixed`: 1-20 items;
  `ari-stream-2w`: one-item with two workers. `drain_ratio` is the issue's figure: from the first
  push to the last batch applied, over from the first push to the last accepted (<= 1.5).
- `ari-backlog`, `ari-backlog-2w`: 6,000 one-item batches accepted with no worker running, then
  the worker(s) started: `drain_batches_per_s` is the worker's own rate, what sizing uses
  (docs/operations.md).

Times come from PostgreSQL (`received_at`, `started_at`, `applied_at` of the scenario's batches),
group sizes from the workers' logs (`ari_batch_applied` lines)."""

from __future__ import annotations

import http.client
import json
import random
import statistics
import time
from urllib.parse import urlsplit

import psycopg
import redis
from rq import Queue
from rq.suspension import resume, suspend

from connectivity.ari.queue import queue_name

from .ari import FIRST_DAY, PLANS, ROOM_TYPES, WorkerProcess, hotel_of, wait_until_applied
from .load import Signed
from .scenarios import API, Context, direct_scenario
from .server import LOGS

# Past ari.py's 167 days, within the 2-year limit.
STREAM_FIRST_DAY = FIRST_DAY + 170
STREAM_DAYS = 150
DRAIN_TIMEOUT_S = 900


def stream_items(ctx: Context, i: int, most: int) -> list[dict]:
    """1 to `most` items (the same for every run: seeded by i): availability and a rate."""
    rng = random.Random(i)
    count = 1 if most == 1 else rng.randint(1, most)
    items = []
    for _ in range(count):
        date = ctx.stay_date(STREAM_FIRST_DAY + rng.randrange(STREAM_DAYS)).isoformat()
        items.append({"room_type_code": ctx.code(rng.choice(ROOM_TYPES)),
                      "rate_plan_code": ctx.code(rng.choice(PLANS)), "date": date,
                      "availability": rng.randint(0, 9), "rate": f"{rng.randint(80, 300)}.00"})
    return items


def register(name: str, description: str, *, batches: int, most_items: int, workers: int,
             backlog: bool) -> None:
    @direct_scenario(name, description, server="app", requests=batches, concurrency=8,
                     warmup=0)
    def build(ctx: Context):
        # What earlier scenarios left unapplied is applied first, not measured here.
        settle = WorkerProcess(ctx.settings, "worker-settle.log")
        settle.start()
        wait_until_applied(ctx.database_url)
        settle.stop()
        # Jobs an earlier run left whose batches are finished (another design's groups, or a
        # worker stopped before its queue was empty) would only be worked through first.
        connection = redis.Redis.from_url(ctx.settings["REDIS_URL"])
        Queue(queue_name(ctx.settings["REDIS_PREFIX"]), connection=connection).empty()
        connection.close()
        pool = [WorkerProcess(ctx.settings, f"worker-{name}-{n}.log") for n in range(workers)]
        with psycopg.connect(ctx.database_url) as conn:
            since = conn.execute("SELECT now()").fetchone()[0]
        if not backlog:
            for worker in pool:
                worker.start()

        def finish() -> dict:
            drain_started = time.time()
            try:
                if backlog:
                    start_together(ctx, pool)
                wait_until_applied(ctx.database_url, timeout=DRAIN_TIMEOUT_S)
            finally:
                for worker in pool:
                    worker.stop()
            return {**stream_figures(ctx.database_url, since), **group_figures(pool),
                    "workers": workers, **({"drain_waited_s": round(time.time() - drain_started,
                                                                     2)} if backlog else {})}
        ctx.finish(finish)
        token = ctx.token("push", signed=True)
        target = urlsplit(ctx.base_url)

        def open_op():
            conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)

            def op(i):
                body = json.dumps({"hotel_code": hotel_of(ctx, i),
                                   "items": stream_items(ctx, i, most_items)}).encode()
                path = f"{API}/ari"
                headers = dict(line.split(": ", 1) for line in Signed(token).header_lines(
                    "PUT", path, body).decode().strip().split("\r\n"))
                conn.request("PUT", path, body, {**headers, "Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                return "ok" if response.status == 202 else f"http:{response.status}"
            return op
        return open_op


def start_together(ctx: Context, pool: list[WorkerProcess]) -> None:
    """Start the workers with RQ's workers suspended, then resume them: each start takes ~2 s
    (imports, start-up recovery), and the first worker would drain much of the backlog alone
    before the second began."""
    connection = redis.Redis.from_url(ctx.settings["REDIS_URL"])
    suspend(connection)
    try:
        for worker in pool:
            worker.start()
    finally:
        resume(connection)
        connection.close()


def stream_figures(database_url: str, since) -> dict:
    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE status NOT IN ('applied', "
            "'partially_applied', 'rejected')), sum(item_count), "
            "extract(epoch FROM max(received_at) - min(received_at)), "
            "extract(epoch FROM max(applied_at) - min(received_at)), "
            "extract(epoch FROM max(applied_at) - max(received_at)), "
            "extract(epoch FROM max(applied_at) - min(started_at)), "
            "max(attempts) FROM ari_batches WHERE received_at >= %s", (since,)).fetchone()
        lags = sorted(float(s) for (s,) in conn.execute(
            "SELECT extract(epoch FROM applied_at - received_at) FROM ari_batches "
            "WHERE received_at >= %s AND applied_at IS NOT NULL", (since,)))
    count, unfinished, items, accept_s, applied_s, after_last_s, working_s, attempts = row
    if not count:
        return {}
    accept_s, applied_s = float(accept_s), float(applied_s)
    return {"batches": count, "not_applied": unfinished, "items": int(items),
            "accepted_in_s": round(accept_s, 2),
            "accepted_per_s": round(count / accept_s, 1) if accept_s else None,
            "last_applied_after_s": round(applied_s, 2),
            "drain_ratio": round(applied_s / accept_s, 2) if accept_s else None,
            "applied_after_last_accept_s": round(float(after_last_s), 2),
            "drain_batches_per_s": round(count / float(working_s), 1) if working_s else None,
            "lag_p50_s": round(statistics.median(lags), 3),
            "lag_p99_s": round(lags[int(len(lags) * 0.99) - 1], 3),
            "max_attempts": attempts}


def group_figures(pool: list[WorkerProcess]) -> dict:
    """Batches per applying job, from the workers' `ari_batch_applied` log lines."""
    sizes = []
    for worker in pool:
        path = LOGS / worker.log_name
        for line in path.read_text(errors="replace").splitlines() if path.exists() else ():
            if '"ari_batch_applied"' in line:
                try:
                    sizes.append(json.loads(line).get("group_size", 1))
                except ValueError:
                    continue
    if not sizes:
        return {}
    return {"applying_jobs": len(sizes), "group_size_mean": round(statistics.mean(sizes), 1),
            "group_size_max": max(sizes)}


register("ari-stream", "2,000 one-item PUT /ari from 8 clients, one worker running: applied "
         "as fast as accepted?", batches=2000, most_items=1, workers=1, backlog=False)
register("ari-stream-mixed", "2,000 PUT /ari of 1-20 items from 8 clients, one worker",
         batches=2000, most_items=20, workers=1, backlog=False)
register("ari-stream-2w", "2,000 one-item PUT /ari from 8 clients, two workers",
         batches=2000, most_items=1, workers=2, backlog=False)
register("ari-backlog", "6,000 one-item PUT /ari accepted with no worker, then drained by one",
         batches=6000, most_items=1, workers=1, backlog=True)
register("ari-backlog-2w", "6,000 one-item PUT /ari accepted with no worker, then drained by "
         "two", batches=6000, most_items=1, workers=2, backlog=True)
