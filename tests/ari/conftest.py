"""Shared by the ARI push tests: a push key, pushing through the API, and a real RQ worker
(in-process SimpleWorker on the test Redis) to apply what was pushed."""

from __future__ import annotations

import datetime as dt

import pytest
import redis
from rq import SimpleWorker

from connectivity.ari import jobs
from connectivity.ari.queue import BatchQueue, queue_name
from tests.support.envelope import assert_envelope_success

API = "/api/connectivity/v1"
# Far enough ahead to be in the future in every timezone, and well within 2 years.
START = dt.date.today() + dt.timedelta(days=5)


def day(offset: int) -> str:
    return (START + dt.timedelta(days=offset)).isoformat()


@pytest.fixture
def push(issue, catalog):
    """Headers of an unsigned push key of acme (signing is tested in tests/auth)."""
    return {"Authorization": f"Bearer {issue('push', signed=False).token}"}


@pytest.fixture
def redis_client(services):
    client = redis.Redis.from_url(services.redis_url)
    yield client
    client.close()


@pytest.fixture
def batch_queue(redis_client, services):
    return BatchQueue(redis_client, services.redis_prefix)


@pytest.fixture
def work(db, redis_client, services):
    """work() -> number of jobs run: a real RQ worker works the queue off, then returns."""
    jobs.use_database(db)

    def _work() -> int:
        worker = SimpleWorker([queue_name(services.redis_prefix)], connection=redis_client)
        worker.work(burst=True)
        worker.refresh()  # the counts are kept in Redis
        return worker.successful_job_count

    yield _work
    jobs.use_database(None)


@pytest.fixture
def put(client, push):
    """put(items, path="/ari", hotel_code="ACME-LIS") -> the accepted batch's id."""
    def _put(items, path="/ari", hotel_code="ACME-LIS", headers=None) -> str:
        response = client.put(API + path, json={"hotel_code": hotel_code, "items": items},
                              headers=headers or push)
        data = assert_envelope_success(response, 202)
        assert data["status"] == "queued" and data["item_count"] == len(items)
        return data["batch_id"]
    return _put


@pytest.fixture
def outcome(client, push):
    def _outcome(batch_id: str, headers=None) -> dict:
        return assert_envelope_success(client.get(f"{API}/ari/batches/{batch_id}",
                                                  headers=headers or push))
    return _outcome


@pytest.fixture
def room_days(db):
    """room_days(property, room type) -> {date: row} of room_type_days."""
    def _read(property_code: str, room_type_code: str) -> dict:
        with db.connection() as conn:
            rows = conn.execute(
                "SELECT d.* FROM room_type_days d JOIN room_types rt ON rt.id = d.room_type_id "
                "JOIN properties p ON p.id = d.property_id WHERE p.code = %s AND rt.code = %s",
                (property_code, room_type_code)).fetchall()
        return {r["date"].isoformat(): r for r in rows}
    return _read


@pytest.fixture
def plan_days(db):
    """plan_days(property, room type, rate plan) -> {date: row} of rate_plan_days."""
    def _read(property_code: str, room_type_code: str, rate_plan_code: str) -> dict:
        with db.connection() as conn:
            rows = conn.execute(
                "SELECT d.* FROM rate_plan_days d JOIN room_types rt ON rt.id = d.room_type_id "
                "JOIN rate_plans rp ON rp.id = d.rate_plan_id "
                "JOIN properties p ON p.id = d.property_id "
                "WHERE p.code = %s AND rt.code = %s AND rp.code = %s",
                (property_code, room_type_code, rate_plan_code)).fetchall()
        return {r["date"].isoformat(): r for r in rows}
    return _read


@pytest.fixture
def refused_day_rows(db):
    """A database that refuses every new room_type_days row: an apply fails, every time (not
    a rejected item: a failure of processing itself). Taken away after the test."""
    with db.connection() as conn:
        conn.execute("CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS "
                     "$$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$")
        conn.execute("CREATE TRIGGER refuse BEFORE INSERT ON room_type_days "
                     "FOR EACH ROW EXECUTE FUNCTION refuse()")
    yield
    # One transaction each: on Citus (PCS_TEST_ON_CITUS) dropping the trigger runs over the
    # shards in parallel, after which the function's drop is refused in the same transaction.
    with db.connection() as conn:
        conn.execute("DROP TRIGGER refuse ON room_type_days")
    with db.connection() as conn:
        conn.execute("DROP FUNCTION refuse()")
