"""A running server's CPU per request, window by window: whether the machine's speed held while a
scenario ran. Run it beside a long scenario (the bench's server answers on the port it printed):

    python -m bench --scenarios rates --requests 100000 &
    python -m bench.cpu_trace http://127.0.0.1:PORT --route availability/rates --windows 20

Each line: the window's requests a second (the route's, from GET /metrics), and the CPU
milliseconds a request of the gunicorn workers and of the model host (from /proc). The same
requests through the same processes should cost the same in every window; where they do not,
the machine's speed moved under the figure (11-30, sitting J: 2.5 to 5.4 ms within 3 minutes).
Linux only."""

from __future__ import annotations

import argparse
import time
import urllib.request

from .cpu import PROC, is_host, process_stat
from .server import PROBE_REQUEST_ID


def server_pids() -> list[int]:
    """gunicorn's processes (its master, workers and model host): every process whose command
    line runs gunicorn or the model host."""
    pids = []
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"gunicorn" in command or b"read_model.host" in command:
                pids.append(int(entry.name))
    return pids


def answered(base_url: str, route: str) -> float:
    """Requests the server has answered on routes whose rule contains `route`."""
    poll = urllib.request.Request(f"{base_url}/metrics", headers={"X-Request-Id": PROBE_REQUEST_ID})
    text = urllib.request.urlopen(poll, timeout=10).read().decode()
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith("pcs_http_requests_total") and route in line)


def cpu_seconds(pids: list[int]) -> dict[int, float]:
    return {pid: stat[1] for pid in pids if (stat := process_stat(pid)) is not None}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("url", help="the server's base URL")
    p.add_argument("--route", default="availability/rates", help="part of the route's rule")
    p.add_argument("--windows", type=int, default=20)
    p.add_argument("--seconds", type=float, default=8.0, help="length of a window")
    args = p.parse_args()
    pids = server_pids()
    hosts = {pid for pid in pids if is_host(pid)}
    for _ in range(args.windows):
        before, count = cpu_seconds(pids), answered(args.url, args.route)
        time.sleep(args.seconds)
        after, requests = cpu_seconds(pids), answered(args.url, args.route) - count
        if requests <= 0:
            print("no requests answered in the window: stopped")
            return 0
        spent = {pid: after[pid] - before[pid] for pid in after if pid in before}
        host = sum(s for pid, s in spent.items() if pid in hosts)
        workers = sum(spent.values()) - host
        print(f"{requests / args.seconds:7.0f} req/s  workers {workers * 1000 / requests:.2f}  "
              f"host {host * 1000 / requests:.2f}  total "
              f"{(workers + host) * 1000 / requests:.2f} ms of CPU a request", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
