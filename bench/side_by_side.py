"""Two servers at once, the same requests to each over one connection, their CPU a request
compared window by window: an A/B that the machine's drift cannot decide. Run one after the
other, two settings (or two versions of the code) meet different machines: on sitting J the
same requests through the same processes took 3.19 to 6.77 ms within 3 minutes
(bench.cpu_trace). Side by side, both meet the same one, and the ratio of each window holds.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pcs_bench REDIS_URL=redis://127.0.0.1/5 \\
        python -m bench.side_by_side --b SEARCH_MODEL_SHARED=off [--b-root ../old-clone]

A and B are the Procfile's `web` with the bench's settings, each given its own KEY=VALUE
settings (`--a`, `--b`) and, for B, another checkout to run from (`--b-root`, whose .venv is
not needed: this one's runs it). The bench's data set must exist (`make bench` once). Each
line: CPU ms a request of A's and B's processes (gunicorn and its children, the model host
among them), their requests a second, and B against A. Their PostgreSQL and Redis work is
not counted: for the read scenarios, the model answers without them. Linux only.

`--writes`: under_writes.py's stream writes beside both (through a server of its own, on the
same Redis prefix as A and B, so that both read its fence and catch up with it), as
`rates-under-writes` has it."""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from pathlib import Path

from devtools.stack import LOCAL, secret_key

from .cpu import process_tree_seconds
from .dataset import Spec
from .discovery import wait_for_search_model  # also registers the read scenarios
from .generate import present_dataset
from .load import http_ops
from .run import KeyRing
from .scenarios import REGISTRY, Context
from .server import WebServer
from .under_writes import WriteStream

SCENARIOS = ("rates", "search")  # the read scenarios: one key of the pull preset serves them
STREAM_PREFIX = "side:"  # the write stream's Redis prefix, and both servers' under writes


def settings_of(pairs: list[str]) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in pairs)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenario", choices=SCENARIOS, default="rates")
    p.add_argument("--a", nargs="*", default=[], metavar="KEY=VALUE", help="A's own settings")
    p.add_argument("--b", nargs="*", default=[], metavar="KEY=VALUE", help="B's own settings")
    p.add_argument("--b-root", type=Path, help="the checkout B runs from (default: this one)")
    p.add_argument("--windows", type=int, default=20)
    p.add_argument("--seconds", type=float, default=8.0, help="length of a window")
    p.add_argument("--writes", action="store_true",
                   help="while under_writes' stream writes (50 ARI batches and 5 bookings a "
                        "second, through a server of its own): both catch up with it")
    args = p.parse_args()
    url, spec = os.environ["DATABASE_URL"], Spec()
    marker = present_dataset(url, spec)
    if marker is None:
        raise SystemExit("the bench's data set is missing or stale: run `make bench` once")
    key = secret_key(LOCAL / "bench-secret_key")
    keys = KeyRing(url, key)
    common = {"DATABASE_URL": url, "REDIS_URL": os.environ["REDIS_URL"], "SECRET_KEY": key,
              "SEARCH_MODEL_PRELOAD": "on"}
    # Under writes, both read the stream's read fence: one prefix for the three servers.
    prefix = {name: STREAM_PREFIX if args.writes else f"side-{name.lower()}:" for name in "AB"}
    servers = {"A": WebServer("app", {**common, "REDIS_PREFIX": prefix["A"],
                                      **settings_of(args.a)}, log_name="side-a"),
               "B": WebServer("app", {**common, "REDIS_PREFIX": prefix["B"],
                                      **settings_of(args.b)}, log_name="side-b",
                              root=args.b_root)}
    ctx = Context(url, spec, marker["start_date"], keys.token, scenario=args.scenario,
                  settings={**common, "REDIS_PREFIX": STREAM_PREFIX})
    stream: WriteStream | None = None
    try:
        for server in servers.values():
            server.start()
        # Every process's model, or the host's, holds the data set before anything is measured.
        for server in servers.values():
            wait_for_search_model(f"http://127.0.0.1:{server.port}", spec.properties,
                                  env={**os.environ, **server.env})
        make = REGISTRY[args.scenario].build(ctx)  # no base_url: the wait above is its own
        if args.writes:
            stream = WriteStream(ctx)
            stream.start()
        answered = {name: 0 for name in servers}
        refused: dict[str, int] = {}  # a server's first answer other than 200 stops the run
        stop = threading.Event()

        def drive(name: str) -> None:
            op, i = http_ops("127.0.0.1", servers[name].port, make)(), 0
            while not stop.is_set():
                status = op(i)
                if status != 200:
                    refused[name] = status
                    stop.set()
                answered[name] += 1
                i += 1
        for name in servers:
            threading.Thread(target=drive, args=(name,), daemon=True).start()
        time.sleep(args.seconds)  # warm
        ratios = []
        for _ in range(args.windows):
            cpu0 = {n: process_tree_seconds(s.process.pid) for n, s in servers.items()}
            done0 = dict(answered)
            time.sleep(args.seconds)
            cpu1 = {n: process_tree_seconds(s.process.pid) for n, s in servers.items()}
            if refused:
                raise SystemExit(f"answers other than 200: {refused}")
            ms = {n: (cpu1[n] - cpu0[n]) * 1000 / max(1, answered[n] - done0[n]) for n in servers}
            ratios.append(ms["B"] / ms["A"])
            print(f"A {ms['A']:.2f} ms ({(answered['A'] - done0['A']) / args.seconds:.0f}/s)  "
                  f"B {ms['B']:.2f} ms ({(answered['B'] - done0['B']) / args.seconds:.0f}/s)  "
                  f"B/A {ratios[-1]:.2f}", flush=True)
        stop.set()
        print(f"B/A median {statistics.median(ratios):.2f} ({min(ratios):.2f}-"
              f"{max(ratios):.2f}) over {len(ratios)} windows of {args.seconds:.0f} s")
    finally:
        if stream is not None:
            print(stream.stop())
        for server in servers.values():
            server.stop()
        keys.revoke_all()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
