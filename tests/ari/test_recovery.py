"""Nothing accepted is lost: a batch accepted while Redis is down, and a worker process killed
with SIGKILL in the middle of a batch, both end applied exactly once."""

from __future__ import annotations

import dataclasses

import psycopg
from rq.job import Job, JobStatus

from app import create_app
from connectivity.ari.queue import requeue_stranded_batches
from tests.support.envelope import assert_envelope_success
from tests.support.ari_days import set_room_days

from tests.ari.conftest import API, START, day
from tests.ari.workers import (batch_row, hold_room_day, kill_with_work_horses, start_worker, wait_for,
                      worker_transactions_ended, worker_waiting_on_lock)
from connectivity.web.services import services_of


def test_a_batch_accepted_while_redis_is_down_is_applied_once_it_returns(
        settings, db, issue, catalog, batch_queue, work, room_days, outcome):
    key = issue("push", signed=False)
    batch_id = accept_while_redis_is_down(settings, key, [
        {"room_type_code": "ACME-DBL", "date": day(0), "availability": 4}])

    assert work() == 0  # the queue never heard of it
    assert batch_row(db, batch_id)["status"] == "queued"
    assert requeue_stranded_batches(db, batch_queue, older_than_seconds=0) == [batch_id]
    # Recovery run again while the job waits does not queue it twice.
    assert requeue_stranded_batches(db, batch_queue, older_than_seconds=0) == []
    assert work() == 1
    assert room_days("LIS1", "DBL")[day(0)]["available"] == 4
    assert outcome(batch_id, headers={"Authorization": f"Bearer {key.token}"})[
        "status"] == "applied"


def test_a_worker_killed_mid_batch_leaves_it_to_be_applied_exactly_once(
        services, settings, db, put, batch_queue, work, room_days, plan_days):
    set_room_days(db, "LIS1", "DBL", [START], available=3)
    batch_id = put([{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
                     "date": day(0), "rate": 125},
                    {"room_type_code": "ACME-DBL", "date": day(0), "availability": 9}])
    with psycopg.connect(services.database_url) as blocker:
        # Hold the row the batch writes, so the worker stops inside its transaction.
        hold_room_day(blocker, "LIS1", START)
        worker = start_worker(services, settings)
        try:
            assert wait_for(lambda: worker_waiting_on_lock(services.database_url)), \
                "the worker never reached the locked row"
            assert batch_row(db, batch_id)["status"] == "processing"
            kill_with_work_horses(worker)
        finally:
            if worker.poll() is None:
                kill_with_work_horses(worker)
        blocker.rollback()
    # PostgreSQL rolls the dead worker's transaction back: nothing of the batch is there.
    assert wait_for(lambda: worker_transactions_ended(services.database_url))
    assert batch_row(db, batch_id) == {"status": "processing", "attempts": 1,
                                       "applied_count": 0}
    assert room_days("LIS1", "DBL")[day(0)]["available"] == 3
    assert plan_days("LIS1", "DBL", "BAR") == {}

    # The killed worker's job is STARTED in Redis with a stale heartbeat: recovery requeues it.
    assert requeue_stranded_batches(db, batch_queue, older_than_seconds=0,
                                    heartbeat_grace_seconds=0) == [batch_id]
    assert work() == 1
    assert batch_row(db, batch_id) == {"status": "applied", "attempts": 2, "applied_count": 2}
    assert room_days("LIS1", "DBL")[day(0)]["available"] == 9
    assert plan_days("LIS1", "DBL", "BAR")[day(0)]["rate"] == 125


def accept_while_redis_is_down(settings, key, items: list[dict]) -> str:
    """PUT /ari to an app whose Redis cannot be reached: the batch is in PostgreSQL only. The
    key must be unsigned: a signed request needs Redis for its nonce and fails closed."""
    down = create_app(dataclasses.replace(settings, redis_url="redis://127.0.0.1:1/0"))
    try:
        response = down.test_client().put(
            f"{API}/ari", json={"hotel_code": "ACME-LIS", "items": items},
            headers={"Authorization": f"Bearer {key.token}"})
        return assert_envelope_success(response, 202)["batch_id"]
    finally:
        services_of(down).db.close()
        services_of(down).guards.close()








def test_a_batch_is_reported_failed_only_once_its_retries_are_spent(db, put, work,
                                                                    batch_queue,
                                                                    refused_day_rows):
    batch_id = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 2}])
    assert work() == 0
    job = Job.fetch(batch_id, connection=batch_queue.connection)
    assert job.get_status() == JobStatus.SCHEDULED  # a retry is due in a few seconds
    assert batch_row(db, batch_id)["status"] == "processing"

    job.retries_left = 0  # the retries are spent: run it once more, now
    job.save()
    batch_queue.queue.enqueue_job(job)
    assert work() == 0
    with db.connection() as conn:
        failed = conn.execute("SELECT status, failure, applied_at FROM ari_batches "
                              "WHERE id = %s", (batch_id,)).fetchone()
    assert failed["status"] == "failed" and failed["applied_at"] is not None
    assert failed["failure"] == "processing failed: RaiseException"


def test_the_worker_recovers_stranded_batches_when_it_starts(services, settings, db, issue,
                                                             catalog, room_days):
    batch_id = accept_while_redis_is_down(settings, issue("push", signed=False), [
        {"room_type_code": "ACME-SGL", "date": day(1), "availability": 6}])
    # The Procfile's worker, as it starts (burst: it exits once the queue is empty).
    worker = start_worker(services, settings, ARI_STRANDED_AFTER_SECONDS="0")
    assert worker.wait(timeout=60) == 0
    assert batch_row(db, batch_id) == {"status": "applied", "attempts": 1, "applied_count": 1}
    assert room_days("LIS1", "SGL")[day(1)]["available"] == 6
