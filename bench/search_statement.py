"""The search statement alone, timed from one connection, on a bench database that may be on
Citus (the `search-floor` scenario's statement and windows (search_request), from today rather than
the data set's first ARI date), without the bench's servers and data-set checks: a few seconds
against a bench database made already, where `search-floor` runs two clients after a warm-up:

    python -m bench.search_statement postgresql://postgres@127.0.0.1:9700/pcs_bench_17c [WINDOWS]

Prints the p50 over WINDOWS windows of 200 hotels x 7 nights (30 by default, after 2 warm-ups)
and a digest of the answers, to compare two databases holding the same data set."""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
import time
from datetime import date, datetime, timedelta, timezone

import psycopg
from psycopg.rows import dict_row

from connectivity.availability.search import search_parameters
from connectivity.store.queries import queries

from .dataset import ALL_PARTNER
from .discovery import SEARCH_HOTELS, SEARCH_NIGHTS, search_request

WARMUP = 2


def main() -> None:
    url, windows = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30
    with psycopg.connect(url, row_factory=dict_row, options="-c jit=off") as conn:
        partner = conn.execute("SELECT id FROM partners WHERE code = %s",
                               (ALL_PARTNER,)).fetchone()["id"]
        codes = [r["hotel_code"] for r in conn.execute(
            "SELECT hotel_code FROM partner_properties WHERE partner_id = %s "
            "AND environment = 'sandbox' ORDER BY hotel_code", (partner,))]
        times, answers = [], []
        for i in range(WARMUP + windows):
            request = search_request(lambda n: date.today() + timedelta(days=n), codes, i)
            for day in ("check_in", "check_out"):
                request[day] = date.fromisoformat(request[day])
            began = time.perf_counter()
            with conn.transaction():
                rows = queries().availability.search_hotels(conn, **search_parameters(
                    partner, "sandbox", request["hotel_codes"], request,
                    datetime.now(timezone.utc)))
            if i >= WARMUP:
                times.append((time.perf_counter() - began) * 1000)
            answers.append(sorted((r["hotel_code"], str(r["lowest_total_amount"])) for r in rows))
    print(f"p50 {statistics.median(times):.1f} ms, min {min(times):.1f} ms, "
          f"{windows} windows of {SEARCH_HOTELS} hotels x {SEARCH_NIGHTS} nights")
    print("answers digest", hashlib.sha1(json.dumps(answers).encode()).hexdigest())


if __name__ == "__main__":
    main()
