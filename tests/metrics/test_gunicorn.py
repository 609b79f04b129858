"""The figures are the server's, not one worker's: gunicorn started as the Procfile starts it
(only DATABASE_URL, REDIS_URL, SECRET_KEY and PORT, plus the worker count), requests spread
over its workers, and every scrape, whichever worker answers it, reports the same totals; also
after a worker is killed and replaced."""

from __future__ import annotations

import http.client
import json
import os
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.metrics.scrape import samples, value
from tests.support.web_process import web_process

WORKERS = 3
READY = ("pcs_http_requests_total", {"endpoint": "/readyz", "method": "GET", "status": "200"})
UNMATCHED = ("pcs_http_requests_total", {"endpoint": "unmatched", "method": "GET",
                                         "status": "404"})


def get(port: int, path: str) -> tuple[int, str]:
    # A new connection each time: gunicorn hands each to whichever worker accepts it first.
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Connection": "close"})
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


def workers_of(master: int) -> set[int]:
    children = Path(f"/proc/{master}/task/{master}/children")
    return {int(pid) for pid in children.read_text().split()} if children.exists() else set()


@pytest.fixture
def server(services, tmp_path):
    with web_process(services, tmp_path, workers=WORKERS,
                     ready=lambda web: len(workers_of(web.process.pid)) >= WORKERS) as web:
        yield web.process, web.port, web.stdout


def scrapes(port: int, count: int) -> list[dict]:
    pages = []
    for _ in range(count):
        status, text = get(port, "/metrics")
        assert status == 200
        pages.append(samples(text))
    return pages


def test_every_scrape_reports_the_whole_server_also_after_a_worker_dies(server):
    process, port, log_path = server
    started = time.monotonic()
    # gunicorn's own line, as JSON like every other (connectivity/logs.py).
    directory = Path(next(
        record["event"].removeprefix("metrics directory: ")
        for record in map(json.loads, log_path.read_text().splitlines())
        if record["event"].startswith("metrics directory: ")))

    # Gunicorn hands each connection to whichever worker accepts first; on a loaded machine one
    # worker may take a whole round. Rounds go on until more than one worker has answered (each
    # keeps its counters in a file named by its pid), and the totals count every round.
    ready = unmatched = 0
    deadline = time.monotonic() + 60
    while True:
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(lambda path: get(port, path)[0],
                                    ["/readyz"] * 30 + ["/no/such/path"] * 6))
        assert answers.count(200) == 30 and answers.count(404) == 6
        ready, unmatched = ready + 30, unmatched + 6
        pids_with_counters = {int(p.stem.rsplit("_", 1)[1])
                              for p in directory.glob("counter_*.db")}
        if len(pids_with_counters) >= 2:
            break
        assert time.monotonic() < deadline, f"only {pids_with_counters} answered in 60 s"

    for page in scrapes(port, 8):
        assert value(page, READY[0], **READY[1]) == ready
        assert value(page, UNMATCHED[0], **UNMATCHED[1]) == unmatched
        assert value(page, "pcs_http_request_duration_seconds_count", endpoint="/readyz",
                     method="GET") == ready

    # A worker killed outright (no clean exit) is replaced; what it answered still counts.
    victim = sorted(pids_with_counters & workers_of(process.pid))[0]
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while victim in workers_of(process.pid) or len(workers_of(process.pid)) < WORKERS:
        assert time.monotonic() < deadline, "the killed worker was not replaced"
        time.sleep(0.2)
    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(lambda _: get(port, "/readyz")[0], range(20))) == {200}
    for page in scrapes(port, 8):
        assert value(page, READY[0], **READY[1]) == ready + 20
        assert value(page, UNMATCHED[0], **UNMATCHED[1]) == unmatched
    print(f"\n{WORKERS} workers, {ready + unmatched + 20} requests, 16 scrapes: "
          f"{time.monotonic() - started:.1f} s after boot")

    # On a clean stop the master removes the directory it made.
    process.send_signal(signal.SIGTERM)
    process.wait(30)
    assert not directory.exists()
