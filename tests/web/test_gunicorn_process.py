"""The web process as the Procfile starts it (gunicorn with gunicorn.conf.py): what gunicorn
refuses before the app (a request line or headers over its limits) is answered in the
envelope, and every line the process writes, gunicorn's own included, is one JSON object on
stdout, with no query string in it (issue 36, items 8 and 10)."""

from __future__ import annotations

import http.client
import json
import signal
import socket
import time

import pytest

from connectivity.web import request_limits
from tests.support.envelope import API
from tests.support.web_process import web_process

SECRET_QUERY = "token=never-logged-7f3a"
PUBLIC_BASE_URL = "https://api.example.test"


@pytest.fixture
def web(services, tmp_path):
    with web_process(services, tmp_path, separate_stderr=True,
                     PUBLIC_BASE_URL=PUBLIC_BASE_URL) as running:
        yield running.process, running.port, running.stdout, running.stderr


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
    assert answer["error"]["doc_url"] == f"{PUBLIC_BASE_URL}{API}/docs#error-{code}"
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
