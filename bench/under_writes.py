"""Search and rates while partners write (docs/benchmarks.md, "Reads that follow writes"):
`search-under-writes` and `rates-under-writes` send the requests `search` and `rates` send,
while a stream writes through the same server as channel managers and resellers do: one-item
ARI batches, WRITES_ARI a second (PUT /ari, applied by the Procfile's worker, started here),
and bookings, WRITES_BOOKINGS a second (POST /bookings). Every one of those writes moves the
read fence (connectivity/store/read_fence.py), and every web process's read model then catches
up before its next answer: what that costs is the figure.

`writes-alone` runs the stream alone for WRITES_ALONE_SECONDS: its CPU per second, times a
reads scenario's duration, is the stream's share of that scenario's CPU; the rest is what the
reads cost under writes. The results file keeps each scenario's duration and CPU, and the
stream's own counts (`stream_ari_batches`, `stream_bookings`)."""

from __future__ import annotations

import http.client
import json
import threading
import time
from urllib.parse import urlsplit

from .ari import WorkerProcess, wait_until_applied
from .ari_stream import stream_items
from .bookings import NIGHTS, _body, _reset
from .dataset import ROOM_TYPES
from .discovery import rates as rates_requests, search_requests, wait_for_search_model
from .scenarios import API, DISCOVERY_CONCURRENCY, Context, direct_scenario, http_scenario

WRITES_ARI, WRITES_BOOKINGS = 50, 5       # a second
STREAM_HOTELS = 100                       # the bookings' hotels (bookings.py's corner)
STREAM_STOCK = 9_000                      # rooms a night there: never sold out in a run
WRITES_ALONE_SECONDS = 30


class WriteStream:
    """Two threads on keep-alive connections of their own: ARI batches and bookings, each at
    its rate, until stopped."""

    def __init__(self, ctx: Context):
        self._ctx = ctx
        self._target = urlsplit(ctx.base_url)
        self._stop = threading.Event()
        self.counts = {"stream_ari_batches": 0, "stream_bookings": 0, "stream_refused": 0}
        self._first_refusal = ""
        hotels = ctx.hotel_codes()[:STREAM_HOTELS]
        self._hotels = hotels
        self._state = _reset(ctx, hotels, NIGHTS + 40, STREAM_STOCK)
        self._push = ctx.token("push", signed=False)
        self._pull = ctx.token("pull", signed=False)
        self._worker = WorkerProcess(ctx.settings, f"worker-{ctx.scenario}.log")
        self._threads = [threading.Thread(target=self._ari, daemon=True),
                         threading.Thread(target=self._book, daemon=True)]

    def start(self) -> None:
        self._worker.start()
        for thread in self._threads:
            thread.start()

    def stop(self) -> dict:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)
        wait_until_applied(self._ctx.database_url)
        self._worker.stop()
        if self.counts["stream_refused"]:
            # A refused write moves no fence: the figures would be of fewer writes than stated
            # (until 11-29 every booking was refused, its room type sent as a tuple).
            print(f"  !! {self.counts['stream_refused']} of the stream's writes were refused "
                  f"(first: {self._first_refusal}): the figures are not under the stated "
                  "writes", flush=True)
        return {**self.counts, "server_requests": sum(self.counts.values())}

    def _paced(self, per_second: float, method: str, path: str, token: str, body,
               accepted: int, counted: str) -> None:
        """`method path` with body(i), `per_second` times a second, until stopped."""
        conn = http.client.HTTPConnection(self._target.hostname, self._target.port, timeout=30)
        headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        i, began = 0, time.monotonic()
        while not self._stop.is_set():
            conn.request(method, API + path, body(i), headers)
            response = conn.getresponse()
            answer = response.read()
            if response.status != accepted and not self._first_refusal:
                self._first_refusal = f"{method} {path} {response.status} {answer[:300]!r}"
            self.counts[counted if response.status == accepted else "stream_refused"] += 1
            i += 1
            time.sleep(max(0.0, began + i / per_second - time.monotonic()))

    def _ari(self) -> None:
        ctx = self._ctx

        def body(i):
            return json.dumps({"hotel_code": self._hotels[i % len(self._hotels)],
                               "items": stream_items(ctx, i, 1)})
        self._paced(WRITES_ARI, "PUT", "/ari", self._push, body, 202, "stream_ari_batches")

    def _book(self) -> None:
        ctx, run = self._ctx, int(time.time())

        def body(i):
            hotel = self._hotels[i % len(self._hotels)]
            return _body(ctx, f"UW-{run}-{i}", hotel, ROOM_TYPES[i % len(ROOM_TYPES)][0], i % 40,
                         self._state["currency"][hotel])
        self._paced(WRITES_BOOKINGS, "POST", "/bookings", self._pull, body, 201,
                    "stream_bookings")


def _under_writes(ctx: Context, requests):
    wait_for_search_model(ctx.base_url, len(ctx.hotel_codes()))
    stream = WriteStream(ctx)
    stream.start()
    ctx.finish(stream.stop)
    return requests(ctx)


@http_scenario("search-under-writes", "`search`'s requests while 50 ARI batches and 5 bookings "
               "a second are written through the same server", requests=600,
               concurrency=DISCOVERY_CONCURRENCY)
def search_under_writes(ctx: Context):
    return _under_writes(ctx, search_requests)


@http_scenario("rates-under-writes", "`rates`' requests while 50 ARI batches and 5 bookings a "
               "second are written through the same server", requests=2000,
               concurrency=DISCOVERY_CONCURRENCY)
def rates_under_writes(ctx: Context):
    return _under_writes(ctx, rates_requests)


@direct_scenario("writes-alone", f"the write stream of the two above alone, "
                 f"{WRITES_ALONE_SECONDS} s: its CPU per second", server="app",
                 requests=WRITES_ALONE_SECONDS * 10, concurrency=1, warmup=0)
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

