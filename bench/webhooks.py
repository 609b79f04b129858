"""Webhook delivery figures (docs/benchmarks.md, "Webhooks"), against the Procfile's `webhooks`
process on real PostgreSQL:

- latency: events committed at a steady rate to a partner with two endpoints, a healthy one and
  one that never answers (every request to it times out after 10 s); the time from each
  event's commit to its first attempt arriving at the healthy endpoint;
- throughput: N events committed at once for one healthy endpoint; the time from the first
  commit to the last delivery, per worker process;
- fairness: the latency's measure for a well-behaved partner (lisboa-cm, one endpoint that
  answers at once) while another partner (acme) has 10 endpoints that all trickle their answers
  a byte a second, and far more deliveries due to them than the worker could ever send.

`.venv/bin/python -m bench.webhooks [--events 1000] [--rate 20] [--seconds 30]
[--scenarios latency,throughput,fairness]` with DATABASE_URL (a server: a database of its own
is created and dropped) and REDIS_URL set."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from devtools.webhook_receiver import receiver

ROOT = Path(__file__).resolve().parents[1]
SECRET_KEY = "bench-webhooks-" + "k" * 32
# The demo catalogue's two partners, both mapping LIS1 in the sandbox.
PARTNERS = ("acme", "lisboa-cm")


def first_arrivals(hook) -> dict[str, float]:
    """When each webhook-id first arrived at the receiver (the wall clock, which PostgreSQL's
    timestamps on this machine share)."""
    first: dict[str, float] = {}
    for request in list(hook.received):
        first.setdefault(request.headers["webhook-id"], request.at)
    return first


def fresh_database(server_url: str) -> str:
    name = f"pcs_bench_webhooks_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return make_conninfo(server_url, dbname=name)


def drop_database(server_url: str, url: str) -> None:
    name = conninfo_to_dict(url)["dbname"]
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(name)))


def prepare(url: str, redis_url: str, prefix: str):
    from app import create_app
    from connectivity.auth.credentials import SigningVault
    from connectivity.operator.catalog import load_catalog, parse_catalog
    from connectivity.operator.keys import issue_key
    from connectivity.operator.migrations import upgrade
    from connectivity.settings import Settings
    from connectivity.web.services import services_of

    upgrade(url)
    app = create_app(Settings(database_url=url, redis_url=redis_url, secret_key=SECRET_KEY,
                              redis_prefix=prefix, webhook_allow_loopback=True))
    db = services_of(app).db
    db.run(load_catalog, parse_catalog((ROOT / "docs" / "demo-catalog.json").read_text()))
    headers = {}
    for partner in PARTNERS:
        key = db.run(issue_key, SigningVault(SECRET_KEY), partner_code=partner, name="bench",
                     environment="sandbox", preset="pull", rate_limit=100000)
        headers[partner] = {"Authorization": f"Bearer {key.token}"}
    return app, db, headers


def create_endpoint(app, headers, url: str) -> None:
    answer = app.test_client().post("/api/connectivity/v1/webhook-endpoints", headers=headers,
                                    json={"url": url, "event_types": ["booking.confirmed"]})
    assert answer.status_code == 201, answer.get_data(as_text=True)


def commit_event(db, partner: str = "acme") -> tuple[str, float]:
    """One event written in its own transaction, as a booking's; (its id, when the commit
    returned)."""
    from connectivity.events import log as event_log

    def use_case(conn):
        row = conn.execute("SELECT pp.property_id, pp.partner_id FROM partner_properties pp "
                           "JOIN partners pa ON pa.id = pp.partner_id WHERE pa.code = %s "
                           "ORDER BY pp.property_id LIMIT 1", (partner,)).fetchone()
        return event_log.record(conn, property_id=row["property_id"],
                                partner_id=row["partner_id"], environment="sandbox",
                                type="booking.confirmed",
                                data={"booking": {"reference": uuid.uuid4().hex}})
    event_id = db.run(use_case)
    return event_id, time.time()


def start_worker(url: str, redis_url: str, prefix: str) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": redis_url, "REDIS_PREFIX": prefix,
           "SECRET_KEY": SECRET_KEY, "LOG_LEVEL": "WARNING", "WEBHOOK_ALLOW_LOOPBACK": "on"}
    command = [sys.executable, "-m", "connectivity.webhook_worker"]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def wait_for(hook, ids, timeout: float) -> dict[str, float]:
    deadline = time.time() + timeout
    while time.time() < deadline:
        first = first_arrivals(hook)
        if all(i in first for i in ids):
            return first
        time.sleep(0.01)
    raise SystemExit(f"not every event arrived within {timeout} s")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def latency(app, db, headers, rate: float, seconds: float) -> dict:
    with receiver() as healthy, receiver(holding=True) as stuck:
        return _latency(app, db, headers, rate, seconds, healthy, stuck)


def _latency(app, db, headers, rate, seconds, healthy, stuck) -> dict:
    # The stuck receiver answers nothing: every request to it times out after 10 s.
    create_endpoint(app, headers["acme"], stuck.url)
    create_endpoint(app, headers["acme"], healthy.url)
    committed = commit_steadily(db, "acme", rate, seconds)
    return latency_figures(db, committed, wait_for(healthy, committed, 60))


def commit_steadily(db, partner: str, rate: float, seconds: float,
                    stop: threading.Event | None = None) -> dict[str, float]:
    """Events of `partner` committed at `rate` per second for `seconds` (or until `stop`):
    each event's id and when its commit returned."""
    committed: dict[str, float] = {}
    interval, started = 1.0 / rate, time.time()
    for n in range(int(rate * seconds)):
        if stop is not None and stop.is_set():
            break
        time.sleep(max(0.0, started + n * interval - time.time()))
        event_id, at = commit_event(db, partner)
        committed[event_id] = at
    return committed


def latency_figures(db, committed: dict[str, float], arrived: dict[str, float]) -> dict:
    # When the dispatcher stored each delivery: past the log's horizon, so readable.
    stored = dict(db.run(lambda conn: [(r["event_id"], r["at"]) for r in conn.execute(
        "SELECT DISTINCT ON (event_id) event_id, extract(epoch FROM created_at) AS at "
        "FROM webhook_deliveries ORDER BY event_id, created_at")]))
    figures = {"events": len(committed)}
    for name, waits in (
            ("commit_to_first_attempt", [arrived[e] - committed[e] for e in committed]),
            ("commit_to_stored", [float(stored[e]) - committed[e] for e in committed]),
            ("stored_to_first_attempt", [arrived[e] - float(stored[e]) for e in committed])):
        figures[name] = {"p50_ms": round(statistics.median(waits) * 1000, 1),
                         "p99_ms": round(percentile(waits, 0.99) * 1000, 1),
                         "max_ms": round(max(waits) * 1000, 1)}
    return figures


def fairness(app, db, headers, rate: float, seconds: float) -> dict:
    """lisboa-cm's first attempts while acme's 10 endpoints trickle (a byte a second, for longer
    than an attempt's 10 s), acme committing 5 events a second throughout: 50 deliveries a second
    due to endpoints that each hold a sender 10 s, against 32 senders. acme holds its share (8)
    and lisboa-cm's deliveries find free senders."""
    with receiver(trickle=60) as slow, receiver() as healthy:
        for n in range(10):
            create_endpoint(app, headers["acme"], f"{slow.url}?endpoint={n}")
        create_endpoint(app, headers["lisboa-cm"], healthy.url)
        stop = threading.Event()
        flood = threading.Thread(target=commit_steadily, args=(db, "acme", 5.0, 3600, stop))
        flood.start()
        try:
            # Until acme's endpoints hold all they may: its share.
            deadline = time.time() + 30
            while len(slow.open_now()) < 8 and time.time() < deadline:
                time.sleep(0.05)
            committed = commit_steadily(db, "lisboa-cm", rate, seconds)
            figures = latency_figures(db, committed, wait_for(healthy, committed, 60))
        finally:
            stop.set()
            flood.join()
        figures["trickling_at_once_max"] = slow.most_at_once()
        figures["trickling_attempts"] = len(slow.received)
    return figures


def throughput(app, db, headers, events: int, start_worker) -> dict:
    """The events are committed first, then one worker process starts: from its start to the
    last delivery, the rate of one worker working off a backlog (its start-up included)."""
    with receiver() as hook:
        create_endpoint(app, headers["acme"], hook.url)
        ids = [commit_event(db)[0] for _ in range(events)]
        started = time.time()
        worker = start_worker()
        arrived = wait_for(hook, ids, 600)
    last = max(arrived[i] for i in ids)
    first = min(arrived[i] for i in ids)
    return {"events": events, "seconds_from_start": round(last - started, 2),
            "per_second_from_start": round(events / (last - started), 1),
            "per_second_first_to_last": round(events / (last - first), 1)}, worker


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(prog="python -m bench.webhooks")
    options.add_argument("--events", type=int, default=1000)
    options.add_argument("--rate", type=float, default=20.0, help="events per second")
    options.add_argument("--seconds", type=float, default=30.0)
    options.add_argument("--scenarios", default="latency,throughput,fairness")
    args = options.parse_args(argv)
    server_url, redis_url = os.environ["DATABASE_URL"], os.environ["REDIS_URL"]
    results = {}
    for scenario in args.scenarios.split(","):
        url = fresh_database(server_url)
        prefix = f"pcs-bench-{uuid.uuid4().hex[:6]}:"
        worker = None
        try:
            app, db, headers = prepare(url, redis_url, prefix)
            if scenario in ("latency", "fairness"):
                worker = start_worker(url, redis_url, prefix)
                measure = latency if scenario == "latency" else fairness
                results[scenario] = measure(app, db, headers, args.rate, args.seconds)
            else:
                results[scenario], worker = throughput(
                    app, db, headers, args.events,
                    lambda url=url, prefix=prefix: start_worker(url, redis_url, prefix))
            print(scenario, json.dumps(results[scenario]), flush=True)
            db.close()
        finally:
            if worker is not None:
                worker.terminate()
                try:
                    worker.wait(30)
                except subprocess.TimeoutExpired:
                    worker.kill()
            drop_database(server_url, url)


if __name__ == "__main__":
    main()
