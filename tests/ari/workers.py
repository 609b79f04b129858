"""The Procfile's worker as a process of its own, for the tests that kill, stop or wait for it,
and what they read of it in PostgreSQL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from tests.support import lockwaits

ROOT = Path(__file__).resolve().parents[2]


def batch_row(db, batch_id: str) -> dict:
    with db.connection() as conn:
        return conn.execute("SELECT status, attempts, applied_count FROM ari_batches "
                            "WHERE id = %s", (batch_id,)).fetchone()


def start_worker(services, settings, **extra_env) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
           "REDIS_PREFIX": services.redis_prefix, "SECRET_KEY": settings.secret_key,
           **extra_env}
    return subprocess.Popen([sys.executable, "-m", "connectivity.worker", "--burst"], cwd=ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def kill_with_work_horses(worker: subprocess.Popen) -> None:
    """SIGKILL the worker and the work horse it forked for the job (RQ starts each horse in a
    session of its own, out of reach of a signal to the worker's group); a worker that has
    already exited is only waited for."""
    if worker.poll() is None:
        for pid in [*children_of(worker.pid), worker.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    worker.wait(timeout=10)


def children_of(pid: int) -> list[int]:
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            children.append(int(stat.parent.name))
    return children


def worker_backends(database_url: str) -> list[dict]:
    """The worker's sessions (tests/support/lockwaits.py: on Citus too, where its row locks are waited
    for on a worker node)."""
    return [s for s in lockwaits.sessions(database_url) if s["application_name"] == "pcs-worker"]


def worker_transactions_ended(database_url: str) -> bool:
    """No worker session is in a transaction any more (a killed worker's was rolled back).
    Through PgBouncer a server connection a worker used may stay in the pool, idle under the
    worker's application_name, until another client takes it."""
    return all(s["state"] == "idle" for s in worker_backends(database_url))


def worker_waiting_on_lock(database_url: str) -> bool:
    return any(s["waiting"] for s in worker_backends(database_url))


def hold_room_day(conn: psycopg.Connection, property_code: str, date) -> None:
    """Lock a hotel's day rows in conn's transaction, so an apply that writes one waits. The
    hotel is named: on Citus a FOR UPDATE must be a router query, on its shard alone."""
    [property_id] = conn.execute("SELECT id FROM properties WHERE code = %s",
                                 (property_code,)).fetchone()
    conn.execute("SELECT 1 FROM room_type_days WHERE property_id = %s AND date = %s FOR UPDATE",
                 (property_id, date))


def wait_for(condition, timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False
