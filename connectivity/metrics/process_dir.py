"""Where gunicorn's worker processes keep their metric values, so that a scrape answered by any
one worker reports the whole server (prometheus-client's multiprocess mode).

prometheus-client picks its value storage when `prometheus_client.values` is first imported:
with PROMETHEUS_MULTIPROC_DIR set, every process writes its counters to files in that
directory and a scrape sums them. The Procfile needs no setting beyond DATABASE_URL, REDIS_URL,
SECRET_KEY and PORT, so when the operator sets no directory the gunicorn master makes one
before the first fork. Nothing here imports prometheus_client before the variable is set: the
master's modules are inherited by every worker it forks."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

ENV = "PROMETHEUS_MULTIPROC_DIR"
# Set by prepare() when the master made the directory itself, so that only that one is removed.
OWNED_ENV = "PCS_METRICS_DIR_OWNED"


def prepare() -> str:
    """gunicorn `on_starting` (master, before any worker): a directory holding no values of an
    earlier run, in the environment every worker inherits."""
    given = os.environ.get(ENV)
    if given:
        directory = Path(given)
        directory.mkdir(parents=True, exist_ok=True)
        # Files of a previous server would be summed with this one's (its counters would not
        # start from zero); only the library's own files are removed.
        for stale in directory.glob("*.db"):
            stale.unlink(missing_ok=True)
        return str(directory)
    directory = tempfile.mkdtemp(prefix="pcs-metrics-")
    os.environ[ENV] = directory
    os.environ[OWNED_ENV] = directory
    return directory


def worker_exited(pid: int) -> None:
    """gunicorn `child_exit`: a dead worker's live gauges stop counting. Its counters and
    histograms stay on disk and in the sums: requests it answered were answered."""
    if not os.environ.get(ENV):
        return
    from prometheus_client import multiprocess
    multiprocess.mark_process_dead(pid)


def cleanup() -> None:
    """gunicorn `on_exit`: remove the directory the master made (an operator's stays)."""
    owned = os.environ.get(OWNED_ENV)
    if owned and owned == os.environ.get(ENV):
        shutil.rmtree(owned, ignore_errors=True)
