"""Search and rates while partners write (docs/benchmarks.md, "Reads that follow writes"):
`search-under-writes` and `rates-under-writes` send the requests `search` and `rates` send,
while a stream writes as channel managers and resellers do: one-item ARI batches, WRITES_ARI a
second (PUT /ari, applied by the Procfile's worker, started here), and bookings,
WRITES_BOOKINGS a second (POST /bookings). Every one of those writes moves the read fence
(connectivity/store/read_fence.py), and the machine's read model then catches up before its
next answer: what that costs is the figure.

The stream writes through a server of its own (the Procfile's web command again, without the
read model: writes never read it), so that the CPU of the processes answering the reads, and
of the backends serving them, can be told from the writes' (bench/cpu.py `backend_roles`):
`reads_own_ms_per_request`, the reads' server and their backends on every node, catch-ups
included. Through one server, reads and writes share its workers and their pooled backends,
and only the machine's CPU less the stream's could be taken (below), a subtraction whose noise
was as large as the figure (docs/benchmarks-history.md, 11-30).

The stream keeps its rate whatever the reads do to its latency: each kind is sent on a schedule
(the i-th write due i / rate seconds after the start) by several connections, so a slow answer
delays no later write (one connection a kind fell behind on a busy Citus cluster: 39 batches a
second instead of 50 while searches ran). It counts the writes it got accepted inside the
measured window (`stream_writes_in_window`) and the rate it kept there.

`search-reference-under-writes` sends `search-reference`'s requests (search.sql alone) beside the
same stream: the reference the two are measured against, on a machine as busy.

`writes-alone` runs the stream alone for WRITES_ALONE_SECONDS: the machine's CPU per write it
took. `reads_less_the_stream` takes that, times the writes of a reads scenario's window, out of
the machine's CPU in that window (`cpu_less_stream_ms_per_request`): machine-wide, Redis and
the kernel's share included, but only as exact as the stream's CPU is the same in both runs."""

from __future__ import annotations

import http.client
import json
import threading
import time

from .ari import WorkerProcess, wait_until_applied
from .ari_stream import stream_items
from .bookings import NIGHTS, _body, _reset
from .dataset import ROOM_TYPES
from .discovery import (catch_up_totals, rates as rates_requests, search_requests,
                        wait_for_search_model)
from .scenarios import API, DISCOVERY_CONCURRENCY, Context, direct_scenario, http_scenario
from .server import REFERENCE, WebServer

WRITES_ARI, WRITES_BOOKINGS = 50, 5       # a second
SENDERS_ARI, SENDERS_BOOKINGS = 4, 2      # connections on each kind's schedule
STREAM_HOTELS = 100                       # the bookings' hotels (bookings.py's corner)
STREAM_STOCK = 9_000                      # rooms a night there: never sold out in a run
WRITES_ALONE_SECONDS = 30
MACHINE_LEFT_TO_READS = 0.1               # below it, the figure under writes is warned of


class WriteStream:
    """ARI batches and bookings, each on its schedule over connections of their own, until
    stopped."""

    def __init__(self, ctx: Context):
        self._ctx = ctx
        self._server = WebServer("writers", {**ctx.settings, "SEARCH_READ_MODEL": "off"})
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.counts = {"stream_ari_batches": 0, "stream_bookings": 0, "stream_refused": 0}
        self._accepted_at: list[float] = []   # perf_counter of each accepted write's answer
        self._first_refusal = ""
        hotels = ctx.hotel_codes()[:STREAM_HOTELS]
        self._hotels = hotels
        self._state = _reset(ctx, hotels, NIGHTS + 40, STREAM_STOCK)
        self._push = ctx.token("push", signed=False)
        self._pull = ctx.token("pull", signed=False)
        self._worker = WorkerProcess(ctx.settings, f"worker-{ctx.scenario}.log")
        run = int(time.time())
        ari = _Schedule(WRITES_ARI, "PUT", "/ari", self._push, self._ari_body, 202,
                        "stream_ari_batches")
        book = _Schedule(WRITES_BOOKINGS, "POST", "/bookings", self._pull,
                         lambda i: self._booking_body(run, i), 201, "stream_bookings")
        self._threads = [threading.Thread(target=self._send, args=(schedule,), daemon=True)
                         for schedule, senders in ((ari, SENDERS_ARI), (book, SENDERS_BOOKINGS))
                         for _ in range(senders)]

    def start(self) -> None:
        self._server.start()
        self._worker.start()
        self._ctx.writer_pids = [self._server.process.pid, self._worker.process.pid]
        for thread in self._threads:
            thread.start()

    def stop(self) -> dict:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)
        wait_until_applied(self._ctx.database_url)
        self._worker.stop()
        self._server.stop()
        self._ctx.writer_pids = []
        if self.counts["stream_refused"]:
            # A refused write moves no fence: the figures would be of fewer writes than stated
            # (until 11-29 every booking was refused, its room type sent as a tuple).
            print(f"  !! {self.counts['stream_refused']} of the stream's writes were refused "
                  f"(first: {self._first_refusal}): the figures are not under the stated "
                  "writes", flush=True)
        return {**self.counts, **self._in_window()}

    def _in_window(self) -> dict:
        start, end = self._ctx.window
        if start is None or end is None or end <= start:
            return {}
        n = sum(1 for t in self._accepted_at if start <= t <= end)
        kept = n / (end - start) / (WRITES_ARI + WRITES_BOOKINGS)
        if kept < 0.95:
            print(f"  !! the stream kept {kept:.0%} of its rate in the measured window: the "
                  "figures are under fewer writes than stated", flush=True)
        return {"stream_writes_in_window": n, "stream_rate_kept": round(kept, 3)}

    def _send(self, schedule: _Schedule) -> None:
        """Take the next due write of the schedule, wait for its time, send it; until stopped."""
        conn = http.client.HTTPConnection("127.0.0.1", self._server.port, timeout=30)
        headers = {"Authorization": f"Bearer {schedule.token}",
                   "Content-Type": "application/json"}
        while not self._stop.is_set():
            i, due = schedule.next()
            time.sleep(max(0.0, due - time.perf_counter()))
            if self._stop.is_set():
                return
            conn.request(schedule.method, API + schedule.path, schedule.body(i), headers)
            response = conn.getresponse()
            answer = response.read()
            with self._lock:
                if response.status == schedule.accepted:
                    self.counts[schedule.counted] += 1
                    self._accepted_at.append(time.perf_counter())
                else:
                    self.counts["stream_refused"] += 1
                    self._first_refusal = self._first_refusal or (
                        f"{schedule.method} {schedule.path} {response.status} {answer[:300]!r}")

    def _ari_body(self, i: int) -> str:
        return json.dumps({"hotel_code": self._hotels[i % len(self._hotels)],
                           "items": stream_items(self._ctx, i, 1)})

    def _booking_body(self, run: int, i: int) -> str:
        hotel = self._hotels[i % len(self._hotels)]
        return _body(self._ctx, f"UW-{run}-{i}", hotel, ROOM_TYPES[i % len(ROOM_TYPES)][0],
                     i % 40, self._state["currency"][hotel])


class _Schedule:
    """One kind of write, `per_second` a second from its first use: the next index and when it
    is due, for whichever sender asks first."""

    def __init__(self, per_second: float, method: str, path: str, token: str, body,
                 accepted: int, counted: str):
        self.method, self.path, self.token, self.body = method, path, token, body
        self.accepted, self.counted = accepted, counted
        self._per_second = per_second
        self._lock = threading.Lock()
        self._i, self._began = 0, None

    def next(self) -> tuple[int, float]:
        with self._lock:
            if self._began is None:
                self._began = time.perf_counter()
            i, self._i = self._i, self._i + 1
        return i, self._began + i / self._per_second


def reads_less_the_stream(rows: list[dict]) -> None:
    """Add to each reads-under-writes row what its requests cost with the stream's share taken
    out (`cpu_less_stream_ms_per_request`), when `writes-alone` ran in the same run: the
    machine's busy CPU in the row's window, less the stream's CPU per write (writes-alone's)
    times the writes of that window, per request."""
    alone = next((r for r in rows if r["name"] == "writes-alone"), None)
    per_write = _cpu_per_write(alone) if alone else None
    if per_write is None:
        return
    # What the stream alone leaves of the machine to the reads. Where it leaves next to nothing
    # (a slower machine, 11-30: 2-7% on Citus), the reads only get what the stream's own growth
    # under contention leaves, and that growth, charged to the few reads, is the figure.
    left = round(1 - alone["cpu"].get("machine_busy_share", 0), 3)
    if left < MACHINE_LEFT_TO_READS:
        print(f"  !! the stream alone took {1 - left:.0%} of the machine: the CPU a read under "
              "writes is mostly the stream's own growth under contention, not the reads'",
              flush=True)
    for row in rows:
        cpu = row.get("cpu") or {}
        writes = row.get("stream_writes_in_window")
        if row["name"] == "writes-alone" or writes is None or "machine_busy_s" not in cpu:
            continue
        reads = cpu["machine_busy_s"] - per_write * writes
        row["stream_cpu_ms_per_write"] = round(per_write * 1000, 3)
        row["stream_left_of_machine"] = left
        row["cpu_less_stream_ms_per_request"] = round(reads * 1000 / row["requests"], 3)


def _cpu_per_write(alone: dict) -> float | None:
    cpu, writes = alone.get("cpu") or {}, alone.get("stream_writes_in_window")
    if not writes or "machine_busy_s" not in cpu:
        return None
    return cpu["machine_busy_s"] / writes


def _under_writes(ctx: Context, requests, model: bool = True):
    if model:
        wait_for_search_model(ctx.base_url, len(ctx.hotel_codes()))
    stream = WriteStream(ctx)
    stream.start()
    (count0, seconds0), began = catch_up_totals(ctx.base_url), time.perf_counter()

    def stop() -> dict:
        # How often the reads' model caught up while the stream ran (the warm-up included):
        # what a catch-up costs is spread over the reads that waited for it.
        (count, seconds), ended = catch_up_totals(ctx.base_url), time.perf_counter()
        caught = count - count0
        return {**stream.stop(), "catch_ups_per_second": round(caught / (ended - began), 1),
                "catch_up_mean_ms": round((seconds - seconds0) * 1000 / caught, 1)
                if caught else None}
    ctx.finish(stop)
    return requests(ctx)


@http_scenario("search-under-writes", "`search`'s requests while 50 ARI batches and 5 bookings "
               "a second are written beside them", requests=3000,
               concurrency=DISCOVERY_CONCURRENCY)
def search_under_writes(ctx: Context):
    return _under_writes(ctx, search_requests)


@http_scenario("rates-under-writes", "`rates`' requests while 50 ARI batches and 5 bookings a "
               "second are written beside them", requests=5000,
               concurrency=DISCOVERY_CONCURRENCY)
def rates_under_writes(ctx: Context):
    return _under_writes(ctx, rates_requests)


@http_scenario("search-reference-under-writes", "`search-reference`'s requests (search.sql "
               "alone) while 50 ARI batches and 5 bookings a second are written beside them: "
               "what the two above are measured against, on a machine as busy",
               server=REFERENCE, requests=600, concurrency=DISCOVERY_CONCURRENCY)
def search_reference_under_writes(ctx: Context):
    return _under_writes(ctx, search_requests, model=False)


@direct_scenario("writes-alone", f"the write stream of the two above alone, "
                 f"{WRITES_ALONE_SECONDS} s: the machine's CPU per write", server="app",
                 requests=WRITES_ALONE_SECONDS * 10, concurrency=1, warmup=0,
                 requests_per_op=0)
def writes_alone(ctx: Context):
    wait_for_search_model(ctx.base_url, len(ctx.hotel_codes()))
    stream = WriteStream(ctx)
    stream.start()
    ctx.finish(stream.stop)

    def open_op():
        def op(i):
            time.sleep(0.1)  # the stream runs; the operations only keep time
            return "ok"
        return op
    return open_op

