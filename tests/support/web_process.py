"""The web process as the Procfile starts it (gunicorn with gunicorn.conf.py, in the repository
root, with only the settings a platform gives it), for the tests that need the real server."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.server import ROOT, free_port, procfile_web_command
from tests.conftest import SECRET_KEY


@dataclass(frozen=True)
class WebProcess:
    process: subprocess.Popen
    port: int
    stdout: Path
    stderr: Path  # the same file as stdout unless asked apart


def answers(port: int) -> bool:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/healthz", headers={"Connection": "close"})
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


@contextmanager
def web_process(services, folder: Path, *, workers: int = 1, ready=None,
                separate_stderr: bool = False, **settings: str):
    """A running web process, stopped with SIGTERM at the end (SIGKILL to its group past 30 s).
    `ready(web)`: what else to wait for than /healthz answering; `settings`: more environment."""
    port = free_port()
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
           **{k: os.environ[k] for k in ("HOME", "LANG") if k in os.environ},
           "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
           "REDIS_PREFIX": services.redis_prefix, "SECRET_KEY": SECRET_KEY,
           "PORT": str(port), "WEB_CONCURRENCY": str(workers), "WEB_THREADS": "2", **settings}
    stdout = folder / "gunicorn.log"
    stderr = folder / "gunicorn.err" if separate_stderr else stdout
    with stdout.open("wb") as out, (stderr.open("wb") if separate_stderr else out) as err:
        process = subprocess.Popen(procfile_web_command(), cwd=ROOT, env=env, stdout=out,
                                   stderr=err if separate_stderr else subprocess.STDOUT,
                                   start_new_session=True)
    web = WebProcess(process, port, stdout, stderr)
    try:
        deadline = time.monotonic() + 60
        while not (answers(port) and (ready is None or ready(web))):
            assert process.poll() is None, stdout.read_text()
            assert time.monotonic() < deadline, stdout.read_text()
            time.sleep(0.2)
        yield web
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
