"""gunicorn keeps an idle connection open longer than any Retry-After the service sends: a
client that waits exactly as told and then reuses its connection must not meet a connection
the server has just closed (contract: a 429 or 503 tells the client when to come back)."""

from __future__ import annotations

import http.client
import re
import runpy
import time

import pytest

from bench.server import ROOT
from connectivity.auth.ratelimit import WINDOW_SECONDS
from tests.support.web_process import web_process

# A literal Retry-After in the service: a header value or a ServiceUnavailable's retry_after.
_LITERAL = re.compile(r'"Retry-After":\s*"(\d+)"|retry_after\s*[:=]\s*(?:int\s*=\s*)?(\d+)')


def gunicorn_settings() -> dict:
    return runpy.run_path(str(ROOT / "gunicorn.conf.py"))


def retry_afters() -> dict[str, int]:
    """Every Retry-After the service can send, by where it comes from."""
    found = {}
    for path in sorted((ROOT / "connectivity").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for match in _LITERAL.finditer(line):
                found[f"{path.relative_to(ROOT)}:{number}"] = int(match.group(1)
                                                                  or match.group(2))
    # A 429's wait is computed: at most the rate limit's window and the second rounded up
    # (auth/ratelimit.py decide).
    found["rate limit window"] = WINDOW_SECONDS + 1
    return found


def test_the_scan_finds_the_literal_retry_afters():
    # The scan itself must see the values it guards (the 503s' 5 s, the sandbox's 1 s).
    values = set(retry_afters().values())
    assert {1, 5, WINDOW_SECONDS + 1} <= values


def test_keepalive_outlasts_every_retry_after():
    keepalive = gunicorn_settings()["keepalive"]
    too_long = {where: seconds for where, seconds in retry_afters().items()
                if seconds + 1 > keepalive}
    assert too_long == {}, f"keepalive = {keepalive} s does not outlast these Retry-After values"


@pytest.fixture
def server(services, tmp_path):
    with web_process(services, tmp_path) as web:
        yield web.port


def test_a_connection_reused_after_a_503s_retry_after_is_still_open(server):
    """The reproduction: one request, a wait of the 503s' Retry-After (5 s) and a little, the
    same connection again. With keepalive = 5 the server had closed it: the second request met
    RemoteDisconnected."""
    conn = http.client.HTTPConnection("127.0.0.1", server, timeout=10)
    try:
        conn.request("GET", "/healthz")
        first = conn.getresponse()
        first.read()
        assert first.status == 200 and not first.will_close
        time.sleep(5.05)
        conn.request("GET", "/healthz")
        again = conn.getresponse()
        again.read()
        assert again.status == 200
    finally:
        conn.close()
