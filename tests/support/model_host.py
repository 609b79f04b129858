"""The machine's model host (connectivity/availability/read_model/host.py) as a real process of
its own, on the tests' database, for the tests that read through it."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from bench.server import ROOT


@contextmanager
def model_host(settings, folder: Path, **environment: str):
    """Yields the host's process once it listens; its socket is folder/host.sock. `environment`:
    more settings (SEARCH_MODEL_REFRESH_SECONDS and the like)."""
    path = folder / "host.sock"
    env = {**os.environ, "DATABASE_URL": settings.database_url, "REDIS_URL": settings.redis_url,
           "SECRET_KEY": settings.secret_key, "SEARCH_MODEL_SOCKET": str(path),
           "SEARCH_MODEL_LOADING": settings.search_model_loading, **environment}
    env.pop("DATABASE_READ_URL", None)
    log = (folder / "host.log").open("w")
    process = subprocess.Popen([sys.executable, "-m", "connectivity.availability.read_model.host"],
                               cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        began = time.monotonic()
        while not path.exists():
            if process.poll() is not None or time.monotonic() - began > 30:
                raise RuntimeError("the model host did not start: "
                                   + (folder / "host.log").read_text()[-2000:])
            time.sleep(0.05)
        yield process
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
