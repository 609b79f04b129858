"""`make run` (devtools/stack.py, what the Makefile runs) as a new user meets it: the demo keys
of one start still work after the next, and a busy port stops it before anything changes.
The stack runs against the test session's PostgreSQL and Redis (DATABASE_URL, REDIS_URL), its
.local folder a temporary one (PCS_LOCAL_DIR)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.error import URLError
from urllib.request import Request, urlopen

import psycopg
import pytest

from devtools.stack import port_in_use

ROOT = Path(__file__).resolve().parents[2]
WHOAMI = "/api/connectivity/v1/whoami"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def stack_env(services, settings, tmp_path):
    return {**os.environ, "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
            "REDIS_PREFIX": services.redis_prefix, "SECRET_KEY": settings.secret_key,
            "PCS_LOCAL_DIR": str(tmp_path / "local"), "WEB_CONCURRENCY": "1",
            "PORT": str(free_port())}


def whoami(port: str, token: str) -> int:
    request = Request(f"http://127.0.0.1:{port}{WHOAMI}",
                      headers={"Authorization": f"Bearer {token}"})
    try:
        with urlopen(request, timeout=5) as answer:
            return answer.status
    except URLError as exc:
        if hasattr(exc, "code"):
            return exc.code
        raise


def start(env: dict, log: Path) -> subprocess.Popen:
    """`make run`'s command; returns once it serves (its kept keys then exist)."""
    out = log.open("w")
    proc = subprocess.Popen([sys.executable, "-m", "devtools.stack", "run"], cwd=ROOT, env=env,
                            stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 90
    while not port_in_use(int(env["PORT"])) or not _serves(env["PORT"]):
        assert proc.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.2)
    return proc


def _serves(port: str) -> bool:
    try:
        with urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as answer:
            return answer.status == 200
    except (URLError, OSError):
        return False


def stop(proc: subprocess.Popen) -> None:
    """Ctrl-C, as a terminal sends it: to the whole process group."""
    os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


def kept_keys(env: dict) -> dict:
    return json.loads((Path(env["PCS_LOCAL_DIR"]) / "demo-keys.json").read_text())


def test_the_first_starts_token_works_after_the_second_until_reset(stack_env, tmp_path):
    first = start(stack_env, tmp_path / "first.log")
    try:
        keys = kept_keys(stack_env)
        assert whoami(stack_env["PORT"], keys["demo-pull"]["token"]) == 200
    finally:
        stop(first)
    path = Path(stack_env["PCS_LOCAL_DIR"]) / "demo-keys.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert "issued now" in (tmp_path / "first.log").read_text()

    second = start(stack_env, tmp_path / "second.log")
    try:
        assert whoami(stack_env["PORT"], keys["demo-pull"]["token"]) == 200
        assert kept_keys(stack_env) == keys
        shown = (tmp_path / "second.log").read_text()
        # re-shown at the start, and in the walk-through
        assert keys["demo-pull"]["token"] in shown and "kept from an earlier start" in shown
        walkthrough = (Path(stack_env["PCS_LOCAL_DIR"]) / "walkthrough.sh").read_text()
        assert keys["demo-pull"]["token"] in walkthrough
        assert f"127.0.0.1:{stack_env['PORT']}" in walkthrough
    finally:
        stop(second)

    # RESET_KEYS=1 (make run RESET_KEYS=1): a new pair, the kept one revoked
    third = start({**stack_env, "RESET_KEYS": "1"}, tmp_path / "third.log")
    try:
        new = kept_keys(stack_env)
        assert {k["key_id"] for k in new.values()}.isdisjoint(k["key_id"] for k in keys.values())
        assert whoami(stack_env["PORT"], keys["demo-pull"]["token"]) == 401   # key_revoked
        assert whoami(stack_env["PORT"], new["demo-pull"]["token"]) == 200
    finally:
        stop(third)


def test_a_busy_port_exits_before_anything_changes(stack_env, services, issue, catalog,
                                                   tmp_path):
    issued = issue("pull", name="demo-pull")
    with psycopg.connect(services.database_url) as conn:
        keys_before = conn.execute("SELECT key_id, revoked_at FROM api_keys").fetchall()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", int(stack_env["PORT"])))
        busy.listen()
        done = subprocess.run([sys.executable, "-m", "devtools.stack", "run"], cwd=ROOT,
                              env=stack_env, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert f"port {stack_env['PORT']} is already in use" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and "migrations" not in done.stdout
    with psycopg.connect(services.database_url) as conn:
        assert conn.execute("SELECT key_id, revoked_at FROM api_keys").fetchall() == keys_before
    assert not Path(stack_env["PCS_LOCAL_DIR"]).exists()  # nothing written either
    assert issued.key_id in {k for k, _ in keys_before}

