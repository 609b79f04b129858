"""The web process as the Procfile starts it (gunicorn with gunicorn.conf.py): what gunicorn
refuses before the app (a request line or headers over its limits) is answered in the
envelope, and every line the process writes, gunicorn's own included, is one JSON object on
stdout, with no query string in it (issue 36, items 8 and 10)."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.server import ROOT, free_port, procfile_web_command
from connectivity.web import request_limits
from tests.conftest import SECRET_KEY
from tests.support.envelope import API

SECRET_QUERY = "token=never-logged-7f3a"


@pytest.fixture
def web(services, tmp_path):
    """(port, stdout path, stderr path) of a running web process; stopped with SIGTERM."""
    port = free_port()
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           **{k: os.environ[k] for k in ("HOME", "LANG") if k in os.environ},
           "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
           "REDIS_PREFIX": services.redis_prefix, "SECRET_KEY": SECRET_KEY,
           "PORT": str(port), "WEB_CONCURRENCY": "1", "WEB_THREADS": "2"}
    out, err = tmp_path / "stdout", tmp_path / "stderr"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(procfile_web_command(), cwd=ROOT, env=env, stdout=stdout,
                                   stderr=stderr, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not _answers(port):
            assert process.poll() is None, out.read_text() + err.read_text()
            assert time.monotonic() < deadline, out.read_text() + err.read_text()
            time.sleep(0.2)
        yield process, port, out, err
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _answers(port: int) -> bool:
    try:
        return request(port, "GET", "/healthz")[0] == 200
    except OSError:
        return False


def request(port: int, method: str, path: str, headers: dict | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, headers={"Connection": "close", **(headers or {})})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


def raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(data)
        received = b""
        while chunk := conn.recv(65536):
            received += chunk
        return received


def assert_refused_in_the_envelope(status, headers, body, expected: int, code: str) -> None:
    assert status == expected, body
    assert headers["Content-Type"] == "application/json", headers
    answer = json.loads(body)
    assert answer["success"] is False
    assert answer["error"]["code"] == code
    assert answer["error"]["details"] == {}
    assert answer["error"]["doc_url"] == f"{API}/docs#error-{code}"
    assert answer["request_id"] == headers["X-Request-Id"]


def test_a_request_line_over_the_limit_is_414_uri_too_long_in_the_envelope(web):
    _, port, _, _ = web
    path = f"{API}/mapping/hotels?codes=" + "A" * request_limits.REQUEST_LINE_BYTES
    assert_refused_in_the_envelope(*request(port, "GET", path), 414, "uri_too_long")
    # At the limit the app answers (here: no credentials).
    path = "/" + "a" * (request_limits.REQUEST_LINE_BYTES - len("GET / HTTP/1.1"))
    assert request(port, "GET", path)[0] == 404


@pytest.mark.parametrize("headers", [
    {"X-Padding": "a" * request_limits.HEADER_FIELD_BYTES},
    {f"X-Padding-{n}": "a" for n in range(request_limits.HEADER_FIELDS + 1)},
], ids=["one header too long", "too many headers"])
def test_headers_over_the_limits_are_431_headers_too_large_in_the_envelope(web, headers):
    _, port, _, _ = web
    assert_refused_in_the_envelope(*request(port, "GET", "/healthz", headers), 431,
                                   "headers_too_large")


def test_every_line_the_web_process_writes_is_one_json_object(web):
    process, port, out, err = web
    request(port, "GET", f"/healthz?{SECRET_QUERY}")
    request(port, "GET", f"{API}/nowhere?{SECRET_QUERY}")
    request(port, "GET", f"{API}/ping?{SECRET_QUERY}" + "&a" * request_limits.REQUEST_LINE_BYTES)
    request(port, "GET", "/healthz", {"X-Padding": "a" * request_limits.HEADER_FIELD_BYTES})
    # A request line gunicorn cannot parse, which it logs as sent.
    raw(port, f"GET /healthz?{SECRET_QUERY} HTTP/1.1 extra\r\nHost: x\r\n\r\n".encode())
    process.send_signal(signal.SIGHUP)  # gunicorn sets its logging up again on a reload
    time.sleep(2)
    request(port, "GET", "/healthz")
    process.send_signal(signal.SIGTERM)
    process.wait(30)
    lines = out.read_bytes().splitlines()
    not_json = [line for line in lines if not _is_json_object(line)]
    assert not_json == [], not_json[:5]
    records = [json.loads(line) for line in lines]
    loggers = {record.get("logger") for record in records}
    assert "gunicorn.error" in loggers  # gunicorn's own lines are among them
    assert any("Invalid request" in record["event"] for record in records)
    assert sum(record["event"] == "request" for record in records) >= 3
    assert err.read_bytes() == b""
    assert b"never-logged" not in out.read_bytes()


def _is_json_object(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False
