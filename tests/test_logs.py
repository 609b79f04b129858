"""Every line a process writes to stdout is one JSON object, whichever library wrote it, and no
URL query string, user information or fragment reaches a log (connectivity/logs.py; issue 36,
item 10). The processes run for real: the worker (RQ, its scheduler process) applying a batch,
the webhooks process, and the logging set-up with real psycopg_pool and httpx traffic. The web
process (gunicorn): tests/web/test_gunicorn_process.py."""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from connectivity.logs import redact_urls
from tests.ari.workers import ROOT, batch_row, children_of, wait_for
from tests.conftest import SECRET_KEY
from tests.support.envelope import API, assert_envelope_success

SECRET = "never-logged-7f3a"
START = dt.date.today() + dt.timedelta(days=5)


def parsed(output: bytes) -> list[dict]:
    """Every line as a JSON object; fails naming the lines that are not."""
    lines = output.splitlines()
    not_json = []
    for line in lines:
        try:
            if not isinstance(json.loads(line), dict):
                not_json.append(line)
        except ValueError:
            not_json.append(line)
    assert not_json == [], not_json[:5]
    return [json.loads(line) for line in lines]


def environment(services, **extra) -> dict[str, str]:
    return {**os.environ, "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
            "REDIS_PREFIX": services.redis_prefix, "SECRET_KEY": SECRET_KEY, **extra}


@pytest.mark.parametrize("text, logged", [
    (f"HTTP Request: POST https://hooks.example/pcs?token={SECRET} \"HTTP/1.1 200 OK\"",
     "HTTP Request: POST https://hooks.example/pcs?[redacted] \"HTTP/1.1 200 OK\""),
    (f"https://user:{SECRET}@hooks.example:8443/a/b", "https://[redacted]@hooks.example:8443/a/b"),
    (f"http://hooks.example/cb#{SECRET}", "http://hooks.example/cb#[redacted]"),
    (f"Invalid request from ip=1.2.3.4: 'GET /healthz?k={SECRET} HTTP/1.1 x'",
     "Invalid request from ip=1.2.3.4: 'GET /healthz?[redacted] HTTP/1.1 x'"),
    ("GET /api/connectivity/v1/ping", "GET /api/connectivity/v1/ping"),
    ("is it? yes", "is it? yes"),
])
def test_urls_lose_their_query_user_information_and_fragment(text, logged):
    assert redact_urls(None, "info", {"event": text, "n": 1}) == {"event": logged, "n": 1}


_LIBRARIES = textwrap.dedent(f"""
    import http.server, logging, threading, warnings
    import httpx, psycopg_pool, structlog
    from connectivity.logs import configure_logging

    configure_logging("INFO")

    class Quiet(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            self.send_response(204)
            self.end_headers()
        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{{server.server_port}}/hook?token={SECRET}"
    httpx.post(url, content=b"{{}}")
    logging.getLogger("httpx").warning("as httpx would: %s", url)
    # A pool that cannot connect: psycopg_pool's own warnings, from its own threads.
    pool = psycopg_pool.ConnectionPool("postgresql://nobody@127.0.0.1:1/none", min_size=1,
                                       timeout=0.5, reconnect_timeout=1, open=False)
    pool.open()
    try:
        pool.getconn(timeout=1)
    except psycopg_pool.PoolTimeout:
        pass
    pool.close()
    warnings.warn("a warning")
    structlog.get_logger("x").info("own", url=url)
""")


def test_library_records_are_json_lines_without_the_query():
    done = subprocess.run([sys.executable, "-c", _LIBRARIES], cwd=ROOT, capture_output=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    records = parsed(done.stdout)
    loggers = {record.get("logger") for record in records}
    assert {"psycopg.pool", "httpx", "py.warnings"} <= loggers, records
    assert SECRET.encode() not in done.stdout + done.stderr
    # httpx's own line per request is not written at all.
    assert not any(record["event"].startswith("HTTP Request") for record in records)
    assert done.stderr == b""


def test_the_webhooks_process_writes_json_lines(services):
    done = subprocess.run([sys.executable, "-m", "connectivity.webhook_worker", "--once"],
                          cwd=ROOT, env=environment(services), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    events = [record["event"] for record in parsed(done.stdout)]
    assert "webhook_worker_started" in events
    assert done.stderr == b""


def test_the_worker_and_its_scheduler_write_json_lines(services, client, issue, catalog, db):
    key = issue("push", signed=False)
    out_path = ROOT / ".local" / f"worker-{os.getpid()}.out"
    out_path.parent.mkdir(exist_ok=True)
    with out_path.open("wb") as out:
        worker = subprocess.Popen([sys.executable, "-m", "connectivity.worker"], cwd=ROOT,
                                  env=environment(services), stdout=out,
                                  stderr=subprocess.STDOUT)
    scheduler = []
    try:
        assert wait_for(lambda: children_of(worker.pid), 30), "no scheduler process"
        scheduler = children_of(worker.pid)
        accepted = assert_envelope_success(client.put(f"{API}/ari", json={
            "hotel_code": "ACME-LIS", "items": [{"room_type_code": "ACME-DBL",
                                                  "date": START.isoformat(),
                                                  "availability": 3}]},
            headers={"Authorization": f"Bearer {key.token}"}), 202)
        assert wait_for(lambda: batch_row(db, accepted["batch_id"])["status"] == "applied", 30)
        worker.send_signal(signal.SIGTERM)
        worker.wait(30)
        assert wait_for(lambda: not any(os.path.exists(f"/proc/{pid}") for pid in scheduler), 10)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait(10)
        for pid in scheduler:
            if os.path.exists(f"/proc/{pid}"):
                os.kill(pid, signal.SIGKILL)
    output = out_path.read_bytes()
    out_path.unlink()
    records = parsed(output)
    loggers = {record.get("logger") for record in records}
    assert {"rq.worker", "rq.scheduler"} <= loggers, loggers
    assert any(accepted["batch_id"] in record["event"] for record in records)
