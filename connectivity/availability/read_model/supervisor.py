"""The gunicorn master's side of the model host (host.py): started before the first worker is
forked, its socket's path handed to every worker in the environment (SEARCH_MODEL_SOCKET),
started again when it dies, stopped with the master.

The socket lies in a directory of its own made with mode 0700 (tempfile.mkdtemp): only the
service's user reaches it, and the key (host.socket_key) is checked besides."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

log = logging.getLogger(__name__)

SOCKET_ENV = "SEARCH_MODEL_SOCKET"
READY_SECONDS = 15.0     # the master waits this long at most for the first host to listen
RESTART_PAUSE = 1.0      # between a host's death and the next one (no busy loop on a crash)


class HostSupervisor:
    """`log`: the master's logger (gunicorn's own, whose lines are the app's JSON ones)."""

    def __init__(self, log=log, exited=None):
        self._log = log
        self._directory = tempfile.mkdtemp(prefix="pcs-model-")
        self.path = os.path.join(self._directory, "host.sock")
        self._stopping = threading.Event()
        self._process: subprocess.Popen | None = None
        # Called with a dead host's pid (its live gauges stop counting: process_dir).
        self._exited = exited

    def start(self) -> None:
        os.environ[SOCKET_ENV] = self.path  # before any worker is forked
        self._spawn()
        threading.Thread(target=self._watch, daemon=True, name="model-host-supervisor").start()
        began = time.monotonic()
        while not os.path.exists(self.path) and time.monotonic() - began < READY_SECONDS:
            if self._process.poll() is not None:
                break  # the watcher starts another; the workers use the statements meanwhile
            time.sleep(0.05)

    def _spawn(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", "connectivity.availability.read_model.host"],
            env=dict(os.environ))
        self._log.info("model host started (pid %s)", self._process.pid)

    def _watch(self) -> None:
        while not self._stopping.is_set():
            process = self._process
            # (gunicorn's master reaps every child on SIGCHLD: wait() then reports 0.)
            code = process.wait()
            if self._stopping.is_set():
                return
            self._log.warning("model host (pid %s) exited with %s; starting another",
                              process.pid, code)
            if self._exited is not None:
                self._exited(process.pid)
            time.sleep(RESTART_PAUSE)
            if not self._stopping.is_set():
                self._spawn()

    def stop(self) -> None:
        self._stopping.set()
        process = self._process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(5)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self._directory, ignore_errors=True)
