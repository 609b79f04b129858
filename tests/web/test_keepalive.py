"""gunicorn keeps an idle connection open longer than any Retry-After the service sends: a
client that waits exactly as told and then reuses its connection must not meet a connection
the server has just closed (contract: a 429 or 503 tells the client when to come back)."""

from __future__ import annotations

import http.client
import os
import re
import runpy
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.server import ROOT, free_port, procfile_web_command
from connectivity.auth.ratelimit import WINDOW_SECONDS
from tests.conftest import SECRET_KEY

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
    port = free_port()
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           **{k: os.environ[k] for k in ("HOME", "LANG") if k in os.environ},
           "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
           "SECRET_KEY": SECRET_KEY, "PORT": str(port), "WEB_CONCURRENCY": "1",
           "WEB_THREADS": "2"}
    log_path = tmp_path / "gunicorn.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(procfile_web_command(), cwd=ROOT, env=env, stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not _answers(port):
            assert process.poll() is None, log_path.read_text()
            assert time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.2)
        yield port
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def _answers(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/healthz", headers={"Connection": "close"})
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


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
