"""Guard of the gunicorn internals connectivity/adapters/gunicorn_errors.py relies on, and the
writer it installs, on a socket pair (tests/web/test_gunicorn_process.py runs it in gunicorn)."""

from __future__ import annotations

import inspect
import json
import socket

import pytest
from gunicorn import util
from gunicorn.workers.base import Worker

from connectivity.adapters import gunicorn_errors
from connectivity.web.envelope import refusal_before_the_app


def test_gunicorn_still_writes_its_refusals_through_util_write_error():
    where = "see connectivity/adapters/gunicorn_errors.py"
    assert list(inspect.signature(gunicorn_errors._HTML_PAGE).parameters) == [
        "sock", "status_int", "reason", "mesg"], where
    assert list(inspect.signature(util.write_nonblock).parameters)[:2] == ["sock", "data"], where
    source = inspect.getsource(Worker.handle_error)
    assert "util.write_error(client, status_int, reason, mesg)" in source, where
    for status in ("status_int = 414", "status_int = 431"):
        assert status in source, where


@pytest.fixture
def installed():
    before = util.write_error
    gunicorn_errors.answer_in_json(refusal_before_the_app)
    gunicorn_errors.answer_in_json(refusal_before_the_app)  # a reload installs it again
    yield
    util.write_error = before


def written(status: int, reason: str) -> bytes:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        util.write_error(ours, status, reason, "gunicorn's text")
        ours.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := theirs.recv(65536):
            received += chunk
        return received


def test_414_and_431_are_written_in_the_envelope(installed):
    for status, reason, code in ((414, "URI Too Long", "uri_too_long"),
                                 (431, "Request Header Fields Too Large", "headers_too_large")):
        head, _, body = written(status, reason).partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        assert lines[0] == f"HTTP/1.1 {status} {reason}"
        headers = dict(line.split(": ", 1) for line in lines[1:])
        assert headers["Content-Type"] == "application/json"
        assert int(headers["Content-Length"]) == len(body)
        answer = json.loads(body)
        assert answer["error"]["code"] == code
        assert answer["request_id"] == headers["X-Request-Id"]


def test_other_refusals_keep_gunicorns_page(installed):
    answer = written(400, "Bad Request")
    assert b"Content-Type: text/html" in answer and b"gunicorn&#x27;s text" in answer
