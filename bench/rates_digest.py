"""Rates' fast path (availability.rates.FAST_PATH: availability.rates_grid), from the day
tables and from search's read model (as the server answers when the model holds the hotel), and
the per-request restriction memo (MEMO_RESTRICTIONS) against the reference path (every offer
through evaluate_offer, every night combined as quote and booking do), in one process on the
bench data set: the same requests as the bench's `rates` scenario (one hotel x 14 nights) answered
each way, interleaved round by round; prints each way's answers digest (equal when the faster
ways are exact) and its CPU per request in this process (the rates use case alone, its reads
included: no Flask, no JSON) and in its PostgreSQL backend (read from /proc: a local server):

    python -m bench.rates_digest postgresql://postgres@127.0.0.1:5432/pcs_bench_search [REQUESTS]
"""

from __future__ import annotations

import hashlib
import sys
import time
from datetime import UTC, date, datetime, timedelta

import orjson

from connectivity.availability import rates as rates_module
from connectivity.availability.read_model import SearchModel
from connectivity.web.ready_body import json_value

from .cpu import cpu_seconds
from .discovery import RATES_NIGHTS
from .search_digest import _Reads, bench_partner

ROUNDS = 5
# reference: FAST_PATH and MEMO_RESTRICTIONS off; memo: the memo alone; fast: the fast path
# from the day tables; model: the fast path from the read model (caught up at most every
# SEARCH_MODEL_REFRESH_SECONDS' default, as the server).
WAYS = ("reference", "memo", "fast", "model")


def main() -> None:
    url, requests = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100
    reads = _Reads(url)
    _, codes, caller = bench_partner(reads.conn)

    def request(i: int) -> dict:  # the `rates` scenario's i-th request
        check_in = date.today() + timedelta(days=1 + i % 60)
        return {"hotel_code": codes[i * 7 % len(codes)], "check_in": check_in,
                "check_out": check_in + timedelta(days=RATES_NIGHTS), "rooms": 1,
                "occupancy": [{"adults": 2}]}

    model = SearchModel(reads, background=False, refresh_seconds=0.25)
    began = time.perf_counter()
    for i in range(requests):  # the hotels asked for, loaded before anything is measured
        asked = request(i)
        model.selling(caller.partner_id, caller.environment, asked["hotel_code"],
                      asked["check_in"], asked["check_out"], None)
    print(f"model loaded {model.held()} hotels in {time.perf_counter() - began:.1f} s")
    answers = {way: [] for way in WAYS}
    cpu = {way: 0.0 for way in WAYS}
    server = {way: 0.0 for way in WAYS}
    backend = reads.conn.info.backend_pid
    for way in answers:  # warm-up: prepared statements, caches
        _use(way)
        rates_module.rates(reads, caller, request(0), datetime.now(UTC), model)
    for round_ in range(ROUNDS):
        for way, texts in answers.items():
            _use(way)
            kept = []
            began, began_server = time.process_time(), _cpu_seconds(backend)
            for i in range(requests):
                answer = rates_module.rates(reads, caller, request(i), datetime.now(UTC), model)
                if round_ == 0:
                    kept.append(answer)  # written below, outside the measured time
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
    rates_module.FAST_PATH = way in ("fast", "model")
    rates_module.FROM_MODEL = way == "model"
    rates_module.MEMO_RESTRICTIONS = way != "reference"


if __name__ == "__main__":
    main()
