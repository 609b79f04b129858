"""Search's read model against the reference statement on the bench data set, in one process:
the model loads every hotel (its rebuild time and memory), then the same windows as the bench's
`search` scenario (200 hotels x 7 nights) are answered both ways; prints each way's answers
digest (equal when the model is exact), and the CPU per search of each way in this process and
in PostgreSQL:

    python -m bench.search_digest postgresql://postgres@127.0.0.1:5432/pcs_bench_search [WINDOWS]

Also what docs/benchmarks.md's `search-digest` lines come from."""

from __future__ import annotations

import hashlib
import json
import sys
import time
from datetime import date, datetime, timedelta, timezone

import psycopg
from psycopg.rows import dict_row

from connectivity.availability.search import search
from connectivity.availability.read_model import SearchModel
from connectivity.auth.authenticate import Caller

from .cpu import cpu_seconds
from .dataset import ALL_PARTNER
from .discovery import search_request


class _Reads:
    """One connection as the service's read target (this script runs no pool)."""

    def __init__(self, url: str):
        self.conn = psycopg.connect(url, row_factory=dict_row, autocommit=True,
                                    options="-c jit=off")

    def connection(self):
        return self._Held(self.conn)

    class _Held:
        def __init__(self, conn):
            self.conn = conn

        def __enter__(self):
            return self.conn

        def __exit__(self, *exc):
            return False


def bench_partner(conn) -> tuple[int, list[str], Caller]:
    """The data set's all-hotels partner: its id, its sandbox hotel codes, and it as a caller."""
    partner = conn.execute("SELECT id FROM partners WHERE code = %s",
                           (ALL_PARTNER,)).fetchone()["id"]
    codes = [r["hotel_code"] for r in conn.execute(
        "SELECT hotel_code FROM partner_properties WHERE partner_id = %s "
        "AND environment = 'sandbox' ORDER BY hotel_code", (partner,))]
    return partner, codes, Caller(**_caller_fields(partner))


def _backend_seconds(pid: int) -> float:
    """CPU seconds of this script's PostgreSQL backend (a local server: /proc)."""
    return cpu_seconds(pid) or 0.0


def main() -> None:
    url, windows = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 60
    reads = _Reads(url)
    conn = reads.conn
    backend = conn.execute("SELECT pg_backend_pid() AS pid").fetchone()["pid"]
    partner, codes, caller = bench_partner(conn)
    model = SearchModel(reads, background=False)
    began, pg0 = time.perf_counter(), _backend_seconds(backend)
    model.search_rows(partner, "sandbox", codes, _typed(search_request(_day, codes, 0)),
                      datetime.now(timezone.utc), lambda some: [], None)
    print(f"model loaded {model.held()} hotels in {time.perf_counter() - began:.1f} s "
          f"(PostgreSQL {_backend_seconds(backend) - pg0:.1f} s CPU), "
          f"{model.nbytes() / 2**20:.0f} MiB of arrays")
    answers = {"model": [], "reference": []}
    cpu = {}
    for way, used in (("reference", None), ("model", model)):
        c0, pg0 = time.process_time(), _backend_seconds(backend)
        for i in range(windows):
            request = _typed(search_request(_day, codes, i))
            answer = search(reads, caller, request, datetime.now(timezone.utc), used)
            answers[way].append(json.dumps(answer, default=str, sort_keys=True))
        cpu[way] = ((time.process_time() - c0) * 1000 / windows,
                    (_backend_seconds(backend) - pg0) * 1000 / windows)
    for way in ("reference", "model"):
        digest = hashlib.sha1("\n".join(answers[way]).encode()).hexdigest()
        print(f"{way:9} digest {digest}  CPU per search: python {cpu[way][0]:.2f} ms, "
              f"PostgreSQL {cpu[way][1]:.2f} ms  ({windows} windows of 200 hotels x 7 nights)")
    differing = [i for i, (a, b) in enumerate(zip(answers["model"], answers["reference"]))
                 if a != b]
    print("answers equal" if not differing else f"answers DIFFER in windows {differing[:10]}")
    sys.exit(1 if differing else 0)


def _day(n: int) -> date:
    return date.today() + timedelta(days=n)


def _typed(request: dict) -> dict:
    return {**request, "check_in": date.fromisoformat(request["check_in"]),
            "check_out": date.fromisoformat(request["check_out"])}


def _caller_fields(partner: int) -> dict:
    import dataclasses
    fields = {f.name for f in dataclasses.fields(Caller)}
    values = {"partner_id": partner, "environment": "sandbox"}
    return {name: values.get(name) for name in fields}


if __name__ == "__main__":
    main()
