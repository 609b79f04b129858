"""Run the web process the way the Procfile does: its `web:` command (gunicorn with
gunicorn.conf.py) in the repository root, with DATABASE_URL, REDIS_URL, SECRET_KEY and PORT in
the environment. The bare baseline runs the same command with another WSGI module."""

from __future__ import annotations

import http.client
import os
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / ".local" / "bench-logs"
# The request id of probes (the start-up health checks, discovery.py's polls of the model's
# load), whose log lines the request-log check skips.
PROBE_REQUEST_ID = "bench-start-probe"
# Settings the operator may set to try other values (README "Optional"); passed through if set.
OPTIONAL_SETTINGS = ("WEB_CONCURRENCY", "WEB_THREADS", "DB_POOL_SIZE", "DB_POOL_TIMEOUT_SECONDS",
                     "LOG_LEVEL", "DATABASE_READ_URL", "READ_MAX_LAG_SECONDS",
                     "SEARCH_MODEL_SHARED", "SEARCH_MODEL_LOAD_CONNECTIONS",
                     "SEARCH_MODEL_SNAPSHOT_SECONDS")


def procfile_web_command(root: Path = ROOT) -> list[str]:
    for line in (root / "Procfile").read_text().splitlines():
        name, _, command = line.partition(":")
        if name.strip() == "web":
            return shlex.split(command)
    raise RuntimeError("the Procfile has no web process")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


REFERENCE = "app-reference"


class WebServer:
    """One gunicorn (master and workers) for the scenarios of one kind: `app` or `bare`."""

    def __init__(self, kind: str, settings: dict[str, str], *, root: Path | None = None,
                 log_name: str | None = None):
        """`root`: the checkout to run (default this one; bench.side_by_side runs another's
        code with this one's virtualenv); `log_name`: its log's name (default `kind`)."""
        self.kind = kind
        self.root = root or ROOT
        self.port = free_port()
        command = procfile_web_command(self.root)
        if kind == "bare":
            command = ["bench.bare:app" if arg == "wsgi:app" else arg for arg in command]
        if kind == REFERENCE:
            # The service as it was before the read model: every search by search.sql.
            settings = {**settings, "SEARCH_READ_MODEL": "off"}
        self.command = command
        venv_bin = str(Path(sys.executable).parent)
        self.env = {"PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
                    **{k: os.environ[k] for k in ("HOME", "LANG") if k in os.environ},
                    **{k: os.environ[k] for k in OPTIONAL_SETTINGS if k in os.environ},
                    **settings, "PORT": str(self.port)}
        LOGS.mkdir(parents=True, exist_ok=True)
        self.log_path = LOGS / f"{log_name or kind}.log"
        self.process: subprocess.Popen | None = None
        # Requests the scenarios sent, so that the request log can be checked against them
        # (start-up probes are told apart by their request id, PROBE_REQUEST_ID).
        self.requests_sent = 0

    def start(self) -> None:
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(self.command, cwd=self.root, env=self.env, stdout=log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        log.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.kind} server exited ({self.process.returncode}):\n"
                                   + self.log_tail())
            if self._healthy():
                self._settle(deadline)
                return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.kind} server not healthy after 60 s:\n" + self.log_tail())

    def _settle(self, deadline: float) -> None:
        """Healthy means one worker answers; the others may still be importing the app. Wait
        until the server's processes stop using CPU, so that no boot work is measured."""
        from .cpu import PROC, process_tree_seconds
        if not PROC.exists():
            time.sleep(3)
            return
        previous = process_tree_seconds(self.process.pid)
        while time.monotonic() < deadline:
            time.sleep(0.5)
            now = process_tree_seconds(self.process.pid)
            if now - previous < 0.05:
                return
            previous = now

    def _healthy(self) -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
        try:
            conn.request("GET", "/healthz", headers={"X-Request-Id": PROBE_REQUEST_ID})
            return conn.getresponse().status == 200
        except OSError:
            return False
        finally:
            conn.close()

    def stop(self) -> None:
        """SIGTERM to the master (graceful: workers finish what they hold), then the group."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(40)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def request_log_lines(self, marker: bytes = b'"event": "request"') -> int:
        """Request log lines of the scenarios' requests written so far; complete once the server
        has stopped (workers flush their stdout when they exit). The contract is one per
        request. A probe's line is left out: a probe the client gave up on (2 s, on a slow
        machine while the workers boot) may still have been answered and logged."""
        probe = f'"request_id": "{PROBE_REQUEST_ID}"'.encode()
        with self.log_path.open("rb") as f:
            return sum(1 for line in f if marker in line and probe not in line)

    def log_tail(self, lines: int = 30) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def __enter__(self) -> "WebServer":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
