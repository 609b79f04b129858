"""What the read model costs in memory (docs/benchmarks.md, "Reads that follow writes"): gunicorn
as the Procfile runs it on the bench data set, once with the model loading every hotel
(SEARCH_MODEL_PRELOAD) and once without it (SEARCH_READ_MODEL=off), and per web process its
resident memory (RSS) and its proportional share (PSS, shared pages divided among the processes
that map them), with the model's own arrays as `pcs_search_model_bytes` reports them.

`python -m bench.model_memory [--workers 4]` (the bench's data set must exist: `make bench` once)."""

from __future__ import annotations

import argparse
import http.client
import time
from pathlib import Path

from .discovery import wait_for_search_model
from .generate import ensure_dataset
from .server import WebServer
from .stack import start_stack

PROC = Path("/proc")
MIB = 1024 * 1024


def _kib(pid: int, field: str, source: str) -> int:
    for line in (PROC / str(pid) / source).read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def workers(master: int) -> list[int]:
    children = PROC / str(master) / "task" / str(master) / "children"
    return sorted(int(p) for p in children.read_text().split())


def memory(server: WebServer) -> list[dict]:
    return [{"pid": pid, "rss_mib": _kib(pid, "VmRSS", "status") / 1024,
             "pss_mib": _kib(pid, "Pss", "smaps_rollup") / 1024}
            for pid in workers(server.process.pid)]


def model_bytes(port: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    return [float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
            if line.startswith("pcs_search_model_bytes")]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args(argv)
    stack = start_stack()
    try:
        ensure_dataset(stack.database_url)
        base = {"DATABASE_URL": stack.database_url, "REDIS_URL": stack.redis_url,
                "SECRET_KEY": stack.secret_key, "REDIS_PREFIX": stack.redis_prefix,
                "WEB_CONCURRENCY": str(args.workers)}
        figures = {}
        for label, extra in (("with the model", {"SEARCH_MODEL_PRELOAD": "on"}),
                             ("without the model", {"SEARCH_READ_MODEL": "off"})):
            with WebServer("app", {**base, **extra}) as server:
                if "SEARCH_MODEL_PRELOAD" in extra:
                    began = time.monotonic()
                    wait_for_search_model(f"http://127.0.0.1:{server.port}", 1000)
                    figures["load_s"] = round(time.monotonic() - began, 1)
                    figures["model_mib"] = [round(b / MIB, 1) for b in model_bytes(server.port)]
                time.sleep(2)
                figures[label] = memory(server)
    finally:
        stack.stop()
    for label in ("with the model", "without the model"):
        rows = figures[label]
        print(f"{label}: " + ", ".join(f"RSS {r['rss_mib']:.0f} MiB / PSS {r['pss_mib']:.0f} MiB"
                                       for r in rows))
    with_pss = sum(r["pss_mib"] for r in figures["with the model"]) / args.workers
    without_pss = sum(r["pss_mib"] for r in figures["without the model"]) / args.workers
    print(f"model arrays per process (pcs_search_model_bytes): {figures['model_mib']} MiB; "
          f"loaded in {figures['load_s']} s")
    print(f"per web process: PSS {with_pss:.0f} MiB with the model, {without_pss:.0f} without: "
          f"the copy costs {with_pss - without_pss:.0f} MiB in each of {args.workers} processes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
