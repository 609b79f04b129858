"""What the read model costs in memory, and how long a cold start takes (docs/benchmarks.md,
"One copy per machine"): gunicorn as the Procfile runs it on the bench data set, with the
machine's model host loading every hotel (SEARCH_MODEL_PRELOAD), and again with the model off
(SEARCH_READ_MODEL=off), each with 2 and then 4 workers. Per process its resident memory (RSS)
and its proportional share (PSS: shared pages divided among the processes that map them); the
host's own figures apart from the workers'.

- the copy: the host's PSS, and the model's arrays as pcs_search_model_bytes reports them;
- each further worker: (PSS of all workers at 4 - at 2) / 2, with the host and without a model,
  each measured after every hotel's rates were read twice through every worker's connections
  (so that with the host each worker maps its arrays and has read from all of them: the
  arrays' pages are the host's, shared; a worker's PSS counts its share of them);
- cold start: from the server's start (the host empty) to the host holding every hotel, while
  the statements answer meanwhile; first with no snapshot stored (every hotel read row by row),
  then, once the first host wrote its snapshot (read_model/snapshots.py), from that snapshot.

`python -m bench.model_memory` (the bench's data set must exist: `make bench` once; BENCH_HOTELS
and BENCH_DATABASE for the 10,000-hotel one)."""

from __future__ import annotations

import argparse
import http.client
import threading
import time
from pathlib import Path

import psycopg

from .cpu import is_host
from .dataset import Spec
from .discovery import wait_for_search_model
from .generate import ensure_dataset
from .load import http_ops
from .run import KeyRing
from .scenarios import REGISTRY, Context
from .server import WebServer
from .stack import start_stack

PROC = Path("/proc")
MIB = 1024 * 1024


def _kib(pid: int, field: str, source: str) -> int:
    for line in (PROC / str(pid) / source).read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def children(master: int) -> list[int]:
    """Of every thread: the master's supervisor thread starts the hosts after the first."""
    return sorted(int(p) for task in (PROC / str(master) / "task").iterdir()
                  for p in (task / "children").read_text().split())


def memory(server: WebServer) -> dict:
    """{"host": [...], "workers": [...]}, each process's RSS and PSS in MiB."""
    out = {"host": [], "workers": []}
    for pid in children(server.process.pid):
        out["host" if is_host(pid) else "workers"].append(
            {"pid": pid, "rss_mib": _kib(pid, "VmRSS", "status") / 1024,
             "pss_mib": _kib(pid, "Pss", "smaps_rollup") / 1024})
    return out


def model_bytes(port: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    return [float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
            if line.startswith("pcs_search_model_bytes")]


def snapshot(database_url: str) -> dict | None:
    """The newest sealed snapshot's size and age, if any."""
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT hotels, bytes, extract(epoch FROM now() - taken_at) "
                           "FROM search_model_snapshots WHERE signature IS NOT NULL "
                           "ORDER BY snapshot_id DESC LIMIT 1").fetchone()
    return row and {"hotels": row[0], "mib": round(row[1] / MIB, 1), "age_s": float(row[2])}


def wait_for_snapshot(database_url: str, timeout: float = 600) -> dict:
    began = time.monotonic()
    while (found := snapshot(database_url)) is None:
        if time.monotonic() - began > timeout:
            raise RuntimeError(f"the host wrote no snapshot within {timeout:.0f} s")
        time.sleep(1)
    return found


def read_every_hotel(port: int, ctx: Context, connections: int, hotels: int) -> None:
    """The rates scenario's requests, every hotel twice, over `connections` connections (each
    kept by the worker that accepted it)."""
    make = REGISTRY["rates"].build(ctx)
    total = 2 * hotels

    def drive(first: int) -> None:
        op = http_ops("127.0.0.1", port, make)()
        for i in range(first, total, connections):
            if op(i) != 200:
                raise RuntimeError("a rates read was refused")
    threads = [threading.Thread(target=drive, args=(n,)) for n in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="2,4", help="worker counts to compare (2,4)")
    args = parser.parse_args(argv)
    counts = [int(w) for w in args.workers.split(",")]
    hotels = Spec().properties
    stack = start_stack()
    figures: dict = {}
    keys = None
    try:
        marker = ensure_dataset(stack.database_url)
        keys = KeyRing(stack.database_url, stack.secret_key)
        ctx = Context(stack.database_url, Spec(), marker["start_date"], keys.token,
                      scenario="rates")
        base = {"DATABASE_URL": stack.database_url, "REDIS_URL": stack.redis_url,
                "SECRET_KEY": stack.secret_key, "REDIS_PREFIX": stack.redis_prefix}
        with psycopg.connect(stack.database_url, autocommit=True) as conn:
            conn.execute("DELETE FROM search_model_snapshots")  # the first start reads rows
        for label, extra in (("host", {"SEARCH_MODEL_PRELOAD": "on"}),
                             ("off", {"SEARCH_READ_MODEL": "off"})):
            for count in counts:
                env = {**base, **extra, "WEB_CONCURRENCY": str(count)}
                if label == "host":
                    # The first host writes its snapshot soon after it holds every hotel
                    # (checked every 10 s), and is measured once it has; the others write none.
                    env["SEARCH_MODEL_SNAPSHOT_SECONDS"] = "10" if count == counts[0] else "3600"
                began = time.monotonic()
                with WebServer("app", env) as server:
                    if label == "host":
                        stored = snapshot(stack.database_url)
                        wait_for_search_model(f"http://127.0.0.1:{server.port}", hotels)
                        figures.setdefault("cold_start_s", []).append(
                            (round(time.monotonic() - began, 1),
                             "from a snapshot" if stored else "row by row"))
                        figures["model_mib"] = [round(b / MIB, 1)
                                                for b in model_bytes(server.port)]
                        if not stored:
                            figures["snapshot"] = wait_for_snapshot(stack.database_url)
                    read_every_hotel(server.port, ctx, 4 * count, hotels)
                    time.sleep(2)
                    figures[(label, count)] = memory(server)
    finally:
        if keys is not None:
            keys.revoke_all()
        stack.stop()
    for (label, count), found in sorted((k, v) for k, v in figures.items() if isinstance(k, tuple)):
        rows = found["host"] + found["workers"]
        print(f"{label}, {count} workers: " + ", ".join(
            f"{'host ' if r in found['host'] else ''}RSS {r['rss_mib']:.0f} / PSS {r['pss_mib']:.0f}"
            for r in rows))

    def workers_pss(label, count):
        return sum(r["pss_mib"] for r in figures[(label, count)]["workers"])
    low, high = counts[0], counts[-1]
    host_pss = [r["pss_mib"] for r in figures[("host", high)]["host"]]
    print(f"{hotels:,} hotels. The copy: the host's PSS {host_pss[0]:.0f} MiB "
          f"({host_pss[0] * 1024 / hotels:.0f} KiB a hotel); its arrays "
          f"(pcs_search_model_bytes) {max(figures['model_mib'])} MiB")
    if high > low:
        per_worker = {label: (workers_pss(label, high) - workers_pss(label, low)) / (high - low)
                      for label in ("host", "off")}
        print(f"each further worker: {per_worker['host']:.0f} MiB with the host, "
              f"{per_worker['off']:.0f} MiB without a model: "
              f"{per_worker['host'] - per_worker['off']:+.0f} MiB")
    print(f"host total at {high} workers: "
          f"{host_pss[0] + workers_pss('host', high):.0f} MiB, against "
          f"{workers_pss('off', high):.0f} MiB without a model")
    print(f"cold start (server start to every hotel held), s: {figures['cold_start_s']}")
    print(f"the snapshot the first host wrote: {figures.get('snapshot')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
