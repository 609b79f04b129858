"""Rates' fast path (availability.rates.FAST_PATH: availability.rates_grid), from the day
tables and from search's read model (as the server answers when the model holds the hotel), and
the per-request restriction memo (MEMO_RESTRICTIONS) against the reference path (every offer
through evaluate_offer, every night combined as quote and booking do), and the model's days
read as a web worker reads them from the model host's shared arrays (`mapped`: read_model/
mapped.py, the model in this process standing for the host), in one process on the
bench data set: the same requests as the bench's `rates` scenario (one hotel x 14 nights) answered
each way, interleaved round by round; prints each way's answers digest (equal when the faster
ways are exact) and its CPU per request in this process (the rates use case alone, its reads
included: no Flask, no JSON) and in its PostgreSQL backend (read from /proc: a local server):

    python -m bench.rates_digest postgresql://postgres@127.0.0.1:5432/pcs_bench_search [REQUESTS]
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from datetime import UTC, date, datetime, timedelta

import orjson

from connectivity.availability import arena
from connectivity.availability import rates as rates_module
from connectivity.availability.read_model import MappedRates, SearchModel
from connectivity.availability.read_model.directory import Directory
from connectivity.availability.read_model.shared_arrays import Segments
from connectivity.web.ready_body import json_value

from .cpu import cpu_seconds
from .discovery import RATES_NIGHTS
from .search_digest import _Reads, bench_partner

ROUNDS = 5
# reference: FAST_PATH and MEMO_RESTRICTIONS off; memo: the memo alone; fast: the fast path
# from the day tables; model: the fast path from the read model (caught up at most every
# SEARCH_MODEL_REFRESH_SECONDS' default, as the server); mapped: the model's days as a worker
# reads them from the host's arrays.
WAYS = ("reference", "memo", "fast", "model", "mapped")
TOKEN = b"d19e57.1"  # the read fence token every request of the mapped way carries


class _Worker:
    """The model as a web worker reads it with SEARCH_MODEL_MAPPED: from the shared arrays
    where it may, from the model itself (standing for the host) otherwise."""

    def __init__(self, model: SearchModel, segments: Segments, directory: Directory):
        self.model, self.segments, self.directory = model, segments, directory
        self.mapped = MappedRates(lambda since, asked, pid: False, refresh_seconds=60)
        self.read = {"mapped": 0, "host": 0}

    def rates_view(self, partner_id, environment, code, check_in, check_out, fence,
                   room_type_codes=None, rate_plan_codes=None):
        if self.mapped.behind():
            layout = self.directory.layout
            found, sizes, fds = self.segments.descriptors(layout.segments())
            self.mapped.segments.add(found, sizes, [os.dup(fd) for fd in fds])
            self.mapped.adopt(layout)
        view = self.mapped.view(partner_id, environment, code, check_in, check_out, fence,
                                room_type_codes, rate_plan_codes)
        self.read["host" if view is None else "mapped"] += 1
        return view or self.model.rates_view(partner_id, environment, code, check_in,
                                             check_out, fence, room_type_codes,
                                             rate_plan_codes)


def main() -> None:
    url, requests = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100
    reads = _Reads(url)
    _, codes, caller = bench_partner(reads.conn)

    def request(i: int) -> dict:  # the `rates` scenario's i-th request
        check_in = date.today() + timedelta(days=1 + i % 60)
        return {"hotel_code": codes[i * 7 % len(codes)], "check_in": check_in,
                "check_out": check_in + timedelta(days=RATES_NIGHTS), "rooms": 1,
                "occupancy": [{"adults": 2}]}

    segments = Segments()
    arena.share_with(segments)  # the model's arrays made as the host makes them
    directory = Directory(segments)
    model = SearchModel(reads, background=False, refresh_seconds=0.25, directory=directory)
    worker = _Worker(model, segments, directory)
    began = time.perf_counter()
    for i in range(requests):  # the hotels asked for, loaded before anything is measured
        asked = request(i)
        model.selling(caller.partner_id, caller.environment, asked["hotel_code"],
                      asked["check_in"], asked["check_out"], None)
    model.refresh(TOKEN)  # caught up under the token the mapped way's requests carry
    print(f"model loaded {model.held()} hotels in {time.perf_counter() - began:.1f} s")

    def answer(way: str, i: int) -> dict:
        if way == "mapped":
            return rates_module.rates(reads, caller, request(i), datetime.now(UTC), worker,
                                      TOKEN)
        return rates_module.rates(reads, caller, request(i), datetime.now(UTC), model)
    answers = {way: [] for way in WAYS}
    cpu = {way: 0.0 for way in WAYS}
    server = {way: 0.0 for way in WAYS}
    backend = reads.conn.info.backend_pid
    for way in answers:  # warm-up: prepared statements, caches
        _use(way)
        answer(way, 0)
    for round_ in range(ROUNDS):
        for way, texts in answers.items():
            _use(way)
            kept = []
            began, began_server = time.process_time(), _cpu_seconds(backend)
            for i in range(requests):
                answered = answer(way, i)
                if round_ == 0:
                    kept.append(answered)  # written below, outside the measured time
            cpu[way] += time.process_time() - began
            server[way] += _cpu_seconds(backend) - began_server
            # As the API writes them (ready_body): an amount is the JSON number Money writes,
            # whether the way gave a Decimal (the reference) or that number already (fast).
            texts.extend(orjson.dumps(a, default=json_value, option=orjson.OPT_SORT_KEYS).decode()
                         for a in kept)
    for way, texts in answers.items():
        digest = hashlib.sha1("\n".join(texts).encode()).hexdigest()
        print(f"{way:9} digest {digest}  CPU per request: python "
              f"{cpu[way] * 1000 / (requests * ROUNDS):.2f} ms, postgres "
              f"{server[way] * 1000 / (requests * ROUNDS):.2f} ms  "
              f"({ROUNDS} rounds of {requests} requests, 1 hotel x {RATES_NIGHTS} nights)")
    print(f"mapped: {worker.read['mapped']} read from the shared arrays, "
          f"{worker.read['host']} by the model")
    _use("model")
    failed = False
    for way in WAYS[1:]:
        differing = [i for i, (a, b) in enumerate(zip(answers[way], answers["reference"]))
                     if a != b]
        failed |= bool(differing)
        print(f"{way}: answers equal to the reference" if not differing else
              f"{way}: answers DIFFER from the reference in requests {differing[:10]}")
    sys.exit(1 if failed else 0)


def _cpu_seconds(pid: int) -> float:
    """CPU time of this script's PostgreSQL backend (a server on this machine: /proc), so that
    the figure is this script's statements alone, whatever else the server runs. 10 ms ticks:
    meaningful over a few hundred requests."""
    seconds = cpu_seconds(pid)
    return float("nan") if seconds is None else seconds


def _use(way: str) -> None:
    rates_module.FAST_PATH = way in ("fast", "model", "mapped")
    rates_module.FROM_MODEL = way in ("model", "mapped")
    rates_module.MEMO_RESTRICTIONS = way != "reference"


if __name__ == "__main__":
    main()
