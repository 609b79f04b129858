"""The machine's model host (connectivity/availability/read_model/host.py) as a real process of
its own, on the tests' database, for the tests that read through it."""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path

from devtools.live import procfile_process

HOST = "connectivity.availability.read_model.host"


@contextmanager
def model_host(settings, folder: Path, **environment: str):
    """Yields the host's process once it listens; its socket is folder/host.sock. `environment`:
    more settings (SEARCH_MODEL_REFRESH_SECONDS and the like)."""
    path = folder / "host.sock"
    with procfile_process(HOST, {
            "DATABASE_URL": settings.database_url, "REDIS_URL": settings.redis_url,
            # The tests' own prefix: the host reads the read fence the tests' writers move.
            "REDIS_PREFIX": settings.redis_prefix,
            "SECRET_KEY": settings.secret_key, "SEARCH_MODEL_SOCKET": str(path),
            "SEARCH_MODEL_LOADING": settings.search_model_loading, **environment}) as process:
        began = time.monotonic()
        while not path.exists():
            if process.poll() is not None or time.monotonic() - began > 30:
                raise RuntimeError(f"the model host did not start (exit {process.poll()})")
            time.sleep(0.05)
        yield process
