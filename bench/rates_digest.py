"""Rates with its per-request restriction memo (availability.rates.MEMO_RESTRICTIONS) against
the reference path (every night combined as quote and booking do), in one process on the bench
data set: the same requests as the bench's `rates` scenario (one hotel x 14 nights) answered
both ways, interleaved round by round; prints each way's answers digest (equal when the memo
is exact) and its CPU per request in this process (the rates use case alone: no Flask, no
JSON):

    python -m bench.rates_digest postgresql://postgres@127.0.0.1:5432/pcs_bench_search [REQUESTS]
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from datetime import UTC, date, datetime, timedelta

from connectivity.availability import rates as rates_module

from .discovery import RATES_NIGHTS
from .search_digest import _Reads, bench_partner

ROUNDS = 5


def main() -> None:
    url, requests = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100
    reads = _Reads(url)
    _, codes, caller = bench_partner(reads.conn)

    def request(i: int) -> dict:  # the `rates` scenario's i-th request
        check_in = date.today() + timedelta(days=1 + i % 60)
        return {"hotel_code": codes[i * 7 % len(codes)], "check_in": check_in,
                "check_out": check_in + timedelta(days=RATES_NIGHTS), "rooms": 1,
                "occupancy": [{"adults": 2}]}

    answers = {"reference": [], "memo": []}
    cpu = {"reference": 0.0, "memo": 0.0}
    for way in answers:  # warm-up: prepared statements, caches
        rates_module.MEMO_RESTRICTIONS = way == "memo"
        rates_module.rates(reads, caller, request(0), datetime.now(UTC))
    for round_ in range(ROUNDS):
        for way, texts in answers.items():
            rates_module.MEMO_RESTRICTIONS = way == "memo"
            began = time.process_time()
            for i in range(requests):
                answer = rates_module.rates(reads, caller, request(i), datetime.now(UTC))
                if round_ == 0:
                    texts.append(json.dumps(answer, default=str, sort_keys=True))
            cpu[way] += time.process_time() - began
    for way, texts in answers.items():
        digest = hashlib.sha1("\n".join(texts).encode()).hexdigest()
        print(f"{way:9} digest {digest}  CPU per request: python "
              f"{cpu[way] * 1000 / (requests * ROUNDS):.2f} ms  "
              f"({ROUNDS} rounds of {requests} requests, 1 hotel x {RATES_NIGHTS} nights)")
    rates_module.MEMO_RESTRICTIONS = True
    differing = [i for i, (a, b) in enumerate(zip(answers["memo"], answers["reference"]))
                 if a != b]
    print("answers equal" if not differing else f"answers DIFFER in requests {differing[:10]}")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
