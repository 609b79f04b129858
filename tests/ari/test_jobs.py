"""A batch's job carries its hotel (connectivity/ari/queue.py), so that the worker finds the batch
on its hotel's shard; a job enqueued without it, as earlier versions did, still applies."""

from __future__ import annotations

from rq.job import Job

from connectivity.ari.queue import requeue_stranded_batches

from tests.ari.conftest import day


def hotel_of(db, batch_id: str) -> int:
    with db.connection() as conn:
        return conn.execute("SELECT property_id FROM ari_batches WHERE id = %s",
                            (batch_id,)).fetchone()["property_id"]


def test_an_accepted_batch_is_enqueued_with_its_hotel(put, db, redis_client):
    batch_id = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 3}])
    job = Job.fetch(batch_id, connection=redis_client)
    assert list(job.args) == [batch_id, hotel_of(db, batch_id)]


def test_recovery_enqueues_with_the_hotel(put, db, batch_queue, redis_client):
    batch_id = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 3}])
    batch_queue.queue.empty()
    assert requeue_stranded_batches(db, batch_queue, older_than_seconds=0) == [batch_id]
    assert list(Job.fetch(batch_id, connection=redis_client).args) == [batch_id,
                                                                        hotel_of(db, batch_id)]


def test_a_job_without_its_hotel_still_applies(put, work, batch_queue, outcome, room_days):
    batch_id = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 3}])
    batch_queue.queue.empty()
    assert batch_queue.enqueue(batch_id)  # as an earlier version's job: the id alone
    assert work() == 1
    assert outcome(batch_id)["status"] == "applied"
    assert room_days("LIS1", "DBL")[day(0)]["available"] == 3
