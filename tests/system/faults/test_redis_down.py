"""Redis stopped and started again (empty): the decided behaviour (README "When Redis is down").

- signed requests need the nonce ledger: they fail closed, 503 `service_unavailable` with
  Retry-After (a nonce that cannot be recorded could be replayed);
- rate limits fall back to a per-process window, never to none;
- bearer requests are served, ARI pushes included: the batch is in PostgreSQL, `queued`, and
  recovery enqueues it once Redis is back; it is then applied exactly once, as is a batch whose
  job Redis lost when it stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import redis
from rq import Queue, Worker

from connectivity.ari.queue import BatchQueue, queue_name, requeue_stranded_batches
from tests.support.signing import bearer, signed_headers
from tests.ari.workers import children_of, wait_for

from tests.system.faults.conftest import API, ROOT, SECRET_KEY, Stack, day
from connectivity.web.services import services_of

LIMIT = 5


def signed(client, token: str, method: str, path: str, body: dict | None = None):
    data = b"" if body is None else json.dumps(body).encode()
    return client.open(API + path, method=method, data=data,
                       headers=signed_headers(token, method, API + path, data),
                       content_type="application/json" if body is not None else None)


def ari(availability: int, offset: int) -> dict:
    return {"hotel_code": "ACME-LIS", "items": [
        {"room_type_code": "ACME-DBL", "date": day(offset), "availability": availability}]}


def batch_row(stack: Stack, batch_id: str) -> dict:
    with stack.db.connection() as conn:
        return conn.execute("SELECT status, attempts, applied_count FROM ari_batches "
                            "WHERE id = %s", (batch_id,)).fetchone()


def availability(stack: Stack, offset: int) -> int | None:
    with stack.db.connection() as conn:
        row = conn.execute("SELECT available FROM room_type_days WHERE date = %s",
                           (day(offset),)).fetchone()
    return row and row["available"]


def test_redis_down_fails_signed_requests_closed_limits_per_process_and_loses_no_batch(
        stack: Stack):
    client = stack.app.test_client()
    signed_push = stack.issue("push", rate_limit=100000).token
    bearer_push = stack.issue("push", signed=False, rate_limit=100000).token
    pull = stack.issue("pull", rate_limit=100000).token
    limited = stack.issue("pull", rate_limit=LIMIT).token

    # The Procfile's worker, running through the outage.
    worker = start_worker(stack)
    try:
        assert wait_for(lambda: Worker.count(queue=Queue(queue_name("faults:"),
                                                         connection=stack_redis(stack))) == 1,
                        60), "the worker did not start"
        # Accepted while Redis is up, whose job Redis loses: Redis stops before the worker
        # (paused meanwhile) takes the job, and comes back empty.
        worker.send_signal(signal.SIGSTOP)
        before = signed(client, signed_push, "PUT", "/ari", ari(11, 0))
        assert before.status_code == 202, before.get_json()
        lost_job_batch = before.get_json()["data"]["batch_id"]
        stack.redis.stop()
        worker.send_signal(signal.SIGCONT)
        outage = outage_checks(stack, client, signed_push, bearer_push, pull, limited,
                               lost_job_batch)
        after = recovery_checks(stack, client, signed_push, limited, worker, lost_job_batch,
                                outage["down_batch"], outage["restarted"])
    finally:
        if worker.poll() is None:
            for pid in [*children_of(worker.pid), worker.pid]:
                os.kill(pid, signal.SIGKILL)
            worker.wait(10)
    print(f"\n[faults] Redis down {outage['seconds']:.1f} s: {outage['signed']} signed requests "
          f"-> 503 service_unavailable with Retry-After ({outage['signed_ms']:.0f} ms each); key "
          f"limited to {LIMIT}/min: {outage['statuses'].count(200)} x 200 then "
          f"{outage['statuses'].count(429)} x 429 (per-process window); bearer search 200; "
          f"bearer PUT /ari 202 in {outage['accept_ms']:.0f} ms, batch queued")
    print(f"[faults] Redis back (empty): signed requests served {after['signed_back']:.2f} s "
          f"after its start, no app restart; recovery requeued {after['requeued']} batches (1 "
          f"accepted while down, 1 whose job Redis lost); the worker that ran through the "
          f"outage applied each once (attempts 1) {after['applied']:.1f} s after the requeue, "
          f"and exited {after['exit_code']} on SIGTERM")


def outage_checks(stack, client, signed_push, bearer_push, pull, limited,
                  lost_job_batch) -> dict:
    stopped = time.monotonic()
    try:
        t0 = time.monotonic()
        refused = [signed(client, signed_push, "PUT", "/ari", ari(12, 1)),
                   signed(client, signed_push, "GET", f"/ari/batches/{lost_job_batch}"),
                   signed(client, signed_push, "POST", "/reservations/CM-404/cancel", {})]
        for response in refused:
            body = response.get_json()
            assert (response.status_code, body["error"]["code"]) == (503, "service_unavailable")
            assert "replay check" in body["error"]["message"]  # the nonce ledger's, failing closed
            assert response.headers["Retry-After"].isdigit()
        signed_ms = (time.monotonic() - t0) / len(refused) * 1000

        answers = [client.get(f"{API}/whoami", headers=bearer(limited))
                   for _ in range(LIMIT + 3)]
        statuses = [r.status_code for r in answers]
        assert statuses == [200] * LIMIT + [429] * 3, statuses
        assert answers[-1].headers["Retry-After"].isdigit()
        assert "RateLimit" in answers[0].headers

        search = client.post(f"{API}/availability/search", headers=bearer(pull), json={
            "hotel_codes": ["ACME-LIS"], "check_in": day(0), "check_out": day(2), "rooms": 1,
            "occupancy": [{"adults": 2}]})
        assert search.status_code == 200, search.get_json()

        t0 = time.monotonic()
        accepted = client.put(f"{API}/ari", json=ari(13, 2), headers=bearer(bearer_push))
        accept_ms = (time.monotonic() - t0) * 1000
        assert accepted.status_code == 202, accepted.get_json()
        down_batch = accepted.get_json()["data"]["batch_id"]
        assert batch_row(stack, down_batch)["status"] == "queued"
        # Long enough for the worker to meet the outage more than once.
        time.sleep(max(0.0, stopped + 3 - time.monotonic()))
    finally:
        restarted = time.monotonic()
        stack.redis.start()
    return {"seconds": restarted - stopped, "signed": len(refused), "signed_ms": signed_ms,
            "statuses": statuses, "accept_ms": accept_ms, "down_batch": down_batch,
            "restarted": restarted}


def recovery_checks(stack, client, signed_push, limited, worker, lost_job_batch, down_batch,
                    restarting: float) -> dict:
    # Signed requests are served again, by the same app: no restart.
    back = signed(client, signed_push, "GET", f"/ari/batches/{down_batch}")
    signed_back = time.monotonic() - restarting
    assert back.status_code == 200, back.get_json()
    assert back.get_json()["data"]["status"] == "queued"
    # The limit is shared again: Redis (empty) counts this key's first request of the window.
    shared = client.get(f"{API}/whoami", headers=bearer(limited))
    assert shared.status_code == 200
    assert f"r={LIMIT - 1};" in shared.headers["RateLimit"], shared.headers["RateLimit"]

    # What the worker's maintenance does every 30 s (here without the 60 s age threshold);
    # the worker that ran through the outage then applies what it enqueued.
    queue = BatchQueue(stack_redis(stack), "faults:")
    requeued = requeue_stranded_batches(stack.db, queue, older_than_seconds=0)
    assert sorted(requeued) == sorted([lost_job_batch, down_batch])
    assert requeue_stranded_batches(stack.db, queue, older_than_seconds=0) == []
    t0 = time.monotonic()
    assert wait_for(lambda: all(batch_row(stack, b)["status"] == "applied"
                                for b in requeued) or worker.poll() is not None, 60)
    applied = time.monotonic() - t0
    assert worker.poll() is None, f"the worker died in the outage:\n{log_tail(stack)}"
    for batch_id in requeued:
        assert batch_row(stack, batch_id) == {"status": "applied", "attempts": 1,
                                              "applied_count": 1}
    assert (availability(stack, 0), availability(stack, 1), availability(stack, 2)) == (
        11, 500, 13)  # day 1: the refused signed push changed nothing
    worker.send_signal(signal.SIGTERM)
    exit_code = worker.wait(30)
    assert exit_code == 0, log_tail(stack)
    return {"signed_back": signed_back, "requeued": len(requeued), "applied": applied,
            "exit_code": exit_code}


def stack_redis(stack: Stack) -> redis.Redis:
    """A client of the stack's Redis, closed with the app's (test-long) connections."""
    return services_of(stack.app).redis


def start_worker(stack: Stack) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": stack.postgres.url, "REDIS_URL": stack.redis.url,
           "REDIS_PREFIX": "faults:", "SECRET_KEY": SECRET_KEY}
    with worker_log(stack).open("ab") as log:
        return subprocess.Popen([sys.executable, "-m", "connectivity.worker"], cwd=ROOT,
                                env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)


def worker_log(stack: Stack):
    return stack.postgres.pgdata.parent / "worker.log"


def log_tail(stack: Stack) -> str:
    return worker_log(stack).read_text(errors="replace")[-3000:]


def test_the_worker_starts_during_a_redis_outage_waits_it_out_and_stops_on_sigterm(
        stack: Stack):
    queue = Queue(queue_name("faults:"), connection=stack_redis(stack))
    stack.redis.stop()
    worker = start_worker(stack)
    try:
        time.sleep(2)
        assert worker.poll() is None, f"the worker exited while Redis was down:\n{log_tail(stack)}"
        stack.redis.start()
        restarted = time.monotonic()
        assert wait_for(lambda: Worker.count(queue=queue) == 1 or worker.poll() is not None,
                        30) and worker.poll() is None, "the worker never registered"
        registered = time.monotonic() - restarted

        stack.redis.stop()
        time.sleep(2)
        assert worker.poll() is None, f"the worker exited while Redis was down:\n{log_tail(stack)}"
        sigterm_at = time.monotonic()
        worker.send_signal(signal.SIGTERM)
        exit_code = worker.wait(30)
        stopped = time.monotonic() - sigterm_at
    finally:
        if worker.poll() is None:
            for pid in [*children_of(worker.pid), worker.pid]:
                os.kill(pid, signal.SIGKILL)
            worker.wait(10)
    assert exit_code == 0, log_tail(stack)
    print(f"\n[faults] worker started with Redis down: waited, registered {registered:.1f} s "
          f"after Redis started; Redis stopped again: still running, SIGTERM -> exit "
          f"{exit_code} in {stopped:.1f} s")
