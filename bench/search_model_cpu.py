"""CPU of one search's use case over the read model, in one process, where the machine's drift
between bench runs does not reach (docs/benchmarks.md, "Search at look-to-book scale"): the
model holds the 200 hotels of one window of the bench data set, then answers 300 searches of
that window at five check-in dates, seven rounds; prints the least and the median CPU per search
of the rounds (the catch-up at most every 0.25 s, as in the server).

    python -m bench.search_model_cpu postgresql://postgres@127.0.0.1:5432/pcs_bench_search

Run it on two checkouts one after the other to compare two versions of the model."""

from __future__ import annotations

import json
import sys
import time
from datetime import date, datetime, timedelta, timezone

import psycopg

from connectivity.availability.schemas import SearchRequestSchema
from connectivity.availability.search import search
from connectivity.availability.read_model import SearchModel
from connectivity.store.database import Database
from connectivity.store.replica import ReadTarget

from .dataset import ALL_PARTNER, Spec, hotel_codes
from .discovery import search_request

SEARCHES, ROUNDS = 300, 7


def main(url: str) -> None:
    reads = ReadTarget(Database(url, max_size=2))
    model = SearchModel(reads, background=False, refresh_seconds=0.25)
    with psycopg.connect(url) as conn:
        partner_id = conn.execute("SELECT id FROM partners WHERE code = %s",
                                  (ALL_PARTNER,)).fetchone()[0]
    codes, today = hotel_codes(Spec()), date.today()
    # Requests 0, 5, 10, ... ask for the same 200 hotels at other dates (search_request).
    requests = [SearchRequestSchema().load(json.loads(json.dumps(search_request(
        lambda k: today + timedelta(days=k), codes, i * 5)))) for i in range(5)]

    class Caller:
        environment = "sandbox"
    Caller.partner_id = partner_id
    now = datetime.now(timezone.utc)

    def run() -> float:
        began = time.process_time()
        for i in range(SEARCHES):
            search(reads, Caller, requests[i % len(requests)], now, model)
        return (time.process_time() - began) * 1000 / SEARCHES

    began = time.monotonic()
    run()  # loads the window's hotels (inline), then warms up
    print(f"model held {model.held()} hotels after {time.monotonic() - began:.1f} s")
    rounds = sorted(run() for _ in range(ROUNDS))
    print(f"search() CPU per search: least {rounds[0]:.3f} ms, median {rounds[ROUNDS // 2]:.3f} ms"
          f" ({ROUNDS} rounds of {SEARCHES}, 200 hotels x 7 nights)")


if __name__ == "__main__":
    main(sys.argv[1])
