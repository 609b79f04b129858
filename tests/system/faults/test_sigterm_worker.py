"""SIGTERM to the ARI worker (the Procfile's `python -m connectivity.worker`, an RQ HerokuWorker)
in the middle of a batch: the batch ends applied exactly once, never twice, never lost.

HerokuWorker gives the job in hand `imminent_shutdown_delay` (6 s) to finish: a batch that
finishes in time is applied by that worker, which then exits; one that does not is cancelled
(its transaction rolled back), left to RQ's retry, and applied by the next worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager

import psycopg
import redis
from rq.job import Job, JobStatus

from connectivity.worker import BatchWorker
from tests.ari.workers import (
    batch_row,
    kill_with_work_horses,
    wait_for,
    worker_waiting_on_lock,
)
from tests.support.ari_days import set_room_days

from tests.system.faults.conftest import API, ROOT, START, day

# What the job in hand is given after SIGTERM (RQ's HerokuWorker.imminent_shutdown_delay).
GRACE_SECONDS = BatchWorker.imminent_shutdown_delay


def start_worker(services, settings) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
           "REDIS_PREFIX": services.redis_prefix, "SECRET_KEY": settings.secret_key}
    return subprocess.Popen([sys.executable, "-m", "connectivity.worker"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)


def stop_for_good(worker: subprocess.Popen) -> None:
    """On a failed test: no worker or work horse is left behind."""
    kill_with_work_horses(worker)
    worker.stderr.close()


@contextmanager
def sigtermed_while_blocked(services, worker: subprocess.Popen):
    """Holds the stay's room row so the worker's batch waits on it, SIGTERMs the worker there,
    and yields the moment of the signal; the row is released when the block ends."""
    with psycopg.connect(services.database_url) as blocker:
        blocker.execute("SELECT 1 FROM room_type_days WHERE date = %s FOR UPDATE", (START,))
        assert wait_for(lambda: worker_waiting_on_lock(services.database_url)), \
            "the worker never reached the locked row"
        sigterm_at = time.monotonic()
        worker.send_signal(signal.SIGTERM)
        yield sigterm_at
        blocker.rollback()


def job_status(services, batch_id: str) -> JobStatus:
    connection = redis.Redis.from_url(services.redis_url)
    try:
        return Job.fetch(batch_id, connection=connection).get_status()
    finally:
        connection.close()


def push(client, token: str) -> str:
    response = client.put(f"{API}/ari", headers={"Authorization": f"Bearer {token}"}, json={
        "hotel_code": "ACME-LIS", "items": [
            {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
             "rate": 125},
            {"room_type_code": "ACME-DBL", "date": day(0), "availability": 9}]})
    assert response.status_code == 202, response.get_json()
    return response.get_json()["data"]["batch_id"]


def applied_data(db) -> tuple:
    with db.connection() as conn:
        available = conn.execute("SELECT available FROM room_type_days WHERE date = %s",
                                 (START,)).fetchone()["available"]
        rates = conn.execute("SELECT rate FROM rate_plan_days WHERE date = %s",
                             (START,)).fetchall()
    return available, [float(r["rate"]) for r in rates]


def test_sigterm_mid_batch_within_the_grace_the_same_worker_applies_it_once(
        services, settings, db, client, issue, catalog):
    set_room_days(db, "LIS1", "DBL", [START], available=3)
    batch_id = push(client, issue("push", signed=False).token)
    worker = start_worker(services, settings)
    try:
        with sigtermed_while_blocked(services, worker) as sigterm_at:
            time.sleep(1)
            assert worker.poll() is None, "the worker left its batch on SIGTERM"
        exit_code = worker.wait(30)
        exited_after = time.monotonic() - sigterm_at
    finally:
        stop_for_good(worker)
    assert exit_code == 0
    assert batch_row(db, batch_id) == {"status": "applied", "attempts": 1, "applied_count": 2}
    assert applied_data(db) == (9, [125.0])
    print(f"\n[faults] worker SIGTERMed mid-batch, lock released 1 s later: the same worker "
          f"applied the batch (attempts 1, applied_count 2) and exited {exit_code} "
          f"{exited_after:.1f} s after SIGTERM")


def test_sigterm_mid_batch_past_the_grace_leaves_it_to_the_next_worker_exactly_once(
        services, settings, db, client, issue, catalog):
    set_room_days(db, "LIS1", "DBL", [START], available=3)
    batch_id = push(client, issue("push", signed=False).token)
    worker = start_worker(services, settings)
    successor = None
    try:
        with sigtermed_while_blocked(services, worker) as sigterm_at:
            # Held past the grace: the work horse gives the job up and the worker exits.
            assert wait_for(lambda: worker.poll() is not None, GRACE_SECONDS + 20)
            exit_code = worker.returncode
            exited_after = time.monotonic() - sigterm_at
        # Nothing of the cancelled attempt is left, and the job waits for its retry.
        assert batch_row(db, batch_id) == {"status": "processing", "attempts": 1,
                                           "applied_count": 0}
        assert applied_data(db) == (3, [])
        assert job_status(services, batch_id) == JobStatus.SCHEDULED

        successor = start_worker(services, settings)
        started = time.monotonic()
        assert wait_for(lambda: batch_row(db, batch_id)["status"] == "applied", 60), \
            batch_row(db, batch_id)
        applied_after = time.monotonic() - started
        # The batch's commit comes before RQ's own bookkeeping of the job: once that is done too
        # the successor is idle, and a SIGTERM stops it at once.
        assert wait_for(lambda: job_status(services, batch_id) == JobStatus.FINISHED, 30)
        successor.send_signal(signal.SIGTERM)
        successor_exit = successor.wait(30)
        successor_stderr = successor.stderr.read().decode(errors="replace")[-3000:]
    finally:
        stop_for_good(worker)
        if successor is not None:
            stop_for_good(successor)
    assert exit_code == 0
    assert successor_exit == 0, successor_stderr
    assert batch_row(db, batch_id) == {"status": "applied", "attempts": 2, "applied_count": 2}
    assert applied_data(db) == (9, [125.0])
    print(f"\n[faults] worker SIGTERMed mid-batch, lock held until it exited: the attempt "
          f"was cancelled after the {GRACE_SECONDS} s grace and rolled back, the worker exited "
          f"{exit_code} {exited_after:.1f} s after SIGTERM; the next worker applied the batch "
          f"{applied_after:.1f} s after it started (RQ retry in 5 s): attempts 2, "
          f"applied_count 2, data written once")
