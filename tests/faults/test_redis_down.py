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
import subprocess
import sys
import time

import redis

from connectivity.ari.queue import BatchQueue, requeue_stranded_batches
from tests.api.signing import bearer, signed_headers

from .conftest import API, ROOT, SECRET_KEY, Stack, day

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

    # Accepted while Redis is up; Redis then stops before any worker ran it, and comes back
    # empty: the job is lost, the batch is not.
    before = signed(client, signed_push, "PUT", "/ari", ari(11, 0))
    assert before.status_code == 202, before.get_json()
    lost_job_batch = before.get_json()["data"]["batch_id"]

    stack.redis.stop()
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
        signed_seconds = (time.monotonic() - t0) / len(refused)

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
        accept_seconds = time.monotonic() - t0
        assert accepted.status_code == 202, accepted.get_json()
        down_batch = accepted.get_json()["data"]["batch_id"]
        assert batch_row(stack, down_batch)["status"] == "queued"
    finally:
        restarting = time.monotonic()
        stack.redis.start()

    # Signed requests are served again, by the same app: no restart.
    back = signed(client, signed_push, "GET", f"/ari/batches/{down_batch}")
    signed_back = time.monotonic() - restarting
    assert back.status_code == 200, back.get_json()
    assert back.get_json()["data"]["status"] == "queued"
    # The limit is shared again: Redis (empty) counts this key's first request of the window.
    shared = client.get(f"{API}/whoami", headers=bearer(limited))
    assert shared.status_code == 200
    assert f"r={LIMIT - 1};" in shared.headers["RateLimit"], shared.headers["RateLimit"]

    # What the worker's maintenance does every 30 s (here without the 60 s age threshold),
    # then the Procfile's worker works the queue off.
    connection = redis.Redis.from_url(stack.redis.url)
    try:
        requeued = requeue_stranded_batches(stack.db, BatchQueue(connection, "faults:"),
                                            older_than_seconds=0)
        assert sorted(requeued) == sorted([lost_job_batch, down_batch])
        assert requeue_stranded_batches(stack.db, BatchQueue(connection, "faults:"),
                                        older_than_seconds=0) == []
    finally:
        connection.close()
    run_worker_burst(stack)
    for batch_id in (lost_job_batch, down_batch):
        assert batch_row(stack, batch_id) == {"status": "applied", "attempts": 1,
                                              "applied_count": 1}
    assert (availability(stack, 0), availability(stack, 1), availability(stack, 2)) == (
        11, 50, 13)  # day 1: the refused signed push changed nothing

    print(f"\n[faults] Redis down: {len(refused)} signed requests -> 503 service_unavailable "
          f"with Retry-After ({signed_seconds * 1000:.0f} ms each); key limited to {LIMIT}/min: "
          f"{statuses.count(200)} x 200 then {statuses.count(429)} x 429 (per-process window); "
          f"bearer search 200; bearer PUT /ari 202 in {accept_seconds * 1000:.0f} ms, "
          f"batch queued")
    print(f"[faults] Redis back (empty): signed requests served {signed_back:.2f} s after its "
          f"start, no app restart; recovery requeued {len(requeued)} batches (1 accepted while "
          f"down, 1 whose job Redis lost), each applied once (attempts 1)")


def run_worker_burst(stack: Stack) -> None:
    env = {**os.environ, "DATABASE_URL": stack.postgres.url, "REDIS_URL": stack.redis.url,
           "REDIS_PREFIX": "faults:", "SECRET_KEY": SECRET_KEY}
    done = subprocess.run([sys.executable, "-m", "connectivity.worker", "--burst"], cwd=ROOT,
                          env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
