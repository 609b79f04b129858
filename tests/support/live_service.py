"""The service as a partner reaches it: the test app on a real socket (werkzeug, threaded) and
the Procfile's worker as a process of its own, for the tests that go through HTTP end to end
(the printed walk-through, the Python client). Import the fixtures into a test module."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def live_origin(app):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(10)


@pytest.fixture
def worker(services, settings):
    yield from _procfile_process("connectivity.worker", services, settings)


@pytest.fixture
def webhook_worker(services, settings):
    """The Procfile's `webhooks` process, retrying after 1 s and then 1 s, sending to the tests'
    receivers on loopback."""
    yield from _procfile_process("connectivity.webhook_worker", services, settings,
                                 WEBHOOK_RETRY_SCHEDULE="1,1", WEBHOOK_ALLOW_LOOPBACK="on")


def _procfile_process(module: str, services, settings, **extra_env):
    env = {**os.environ, "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
           "REDIS_PREFIX": services.redis_prefix, "SECRET_KEY": settings.secret_key, **extra_env}
    proc = subprocess.Popen([sys.executable, "-m", module], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    yield proc
    proc.terminate()
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
