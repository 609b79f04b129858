"""A running server's CPU per request, window by window: whether the machine's speed held while a
scenario ran. Run it beside a long scenario (the bench's server answers on the port it printed):

    python -m bench --scenarios rates --requests 100000 &
    python -m bench.cpu_trace http://127.0.0.1:PORT --route availability/rates --windows 20

Each line: the window's requests a second (the route's, from GET /metrics), and the CPU
milliseconds a request of the gunicorn workers and of the model host (from /proc: the
processes of the server listening on the URL's port). The same requests through the same
processes should cost the same in every window; where they do not, the machine's speed moved
under the figure (11-30, sitting J: 3.19 to 6.77 ms within 3 minutes). Linux only."""

from __future__ import annotations

import argparse
import time
from urllib.parse import urlsplit

from .cpu import is_host, listening_pids, process_stat, process_tree
from .discovery import scrape


def master_of(port: int) -> int:
    """The gunicorn master listening on `port`: of the processes holding its socket (the
    master and its workers), the one whose parent is not among them. Another server on the
    machine (a test run's, the other of bench.side_by_side's) is not counted."""
    holders = listening_pids(port)
    for pid in holders:
        stat = process_stat(pid)
        if stat is not None and stat[0] not in holders:
            return pid
    raise SystemExit(f"no process listens on port {port}")


def answered(base_url: str, route: str) -> float:
    """Requests the server has answered on routes whose rule contains `route`."""
    return sum(value for series, value in scrape(base_url)
               if series.startswith("pcs_http_requests_total") and route in series)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("url", help="the server's base URL")
    p.add_argument("--route", default="availability/rates", help="part of the route's rule")
    p.add_argument("--windows", type=int, default=20)
    p.add_argument("--seconds", type=float, default=8.0, help="length of a window")
    args = p.parse_args()
    master = master_of(urlsplit(args.url).port or 80)
    for _ in range(args.windows):
        before, count = process_tree(master), answered(args.url, args.route)
        time.sleep(args.seconds)
        after, requests = process_tree(master), answered(args.url, args.route) - count
        if requests <= 0:
            print("no requests answered in the window: stopped")
            return 0
        # A worker that gunicorn started during the window counts whole; one that ended, not.
        spent = {pid: seconds - before.get(pid, 0.0) for pid, seconds in after.items()}
        host = sum(seconds for pid, seconds in spent.items() if is_host(pid))
        workers = sum(spent.values()) - host
        print(f"{requests / args.seconds:7.0f} req/s  workers {workers * 1000 / requests:.2f}  "
              f"host {host * 1000 / requests:.2f}  total "
              f"{(workers + host) * 1000 / requests:.2f} ms of CPU a request", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
