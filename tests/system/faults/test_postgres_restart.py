"""PostgreSQL stopped and started again under traffic: while it is down every answer is either
503 `service_unavailable` with `Retry-After` or the answer given before the outage (never a
500, never a hang), every success that needs the database is a 503, and once it is back every
endpoint answers as before the outage, without restarting the app.

Since keys are read from each process's key cache (connectivity/auth/keycache.py), a request
need not touch PostgreSQL before its use case does: `GET /ping` is answered from the cached key
and Redis alone (no revocation can commit while the database is down), and a body the schema
refuses is a 422 as before. Each of those answers as before, or 503 once the copy's TTL passed."""

from __future__ import annotations

import time

from tests.system.faults.conftest import Stack
from tests.system.faults.traffic import Answer, Partner, Traffic

OUTAGE_SECONDS = 6
# A success answered from the key cache and Redis alone (see the docstring).
WITHOUT_POSTGRES = {"GET /ping"}
# Not a figure under test: how long the test waits for full service before it fails.
GIVE_UP_SECONDS = 60


def is_unavailable(answer: Answer) -> bool:
    return (answer.status == 503 and answer.code == "service_unavailable"
            and answer.retry_after is not None and answer.retry_after.isdigit())


def test_postgres_down_is_a_503_with_retry_after_and_service_returns_without_a_restart(
        stack: Stack):
    partner = seeded_partner(stack)
    client = stack.app.test_client()
    # What every endpoint answers with the database up: the service to come back to.
    expected = {}
    for endpoint in partner.endpoints():
        answer = partner.send(client, endpoint)
        assert answer.status < 500, answer
        expected[endpoint] = answer.status

    traffic = Traffic(stack.app, partner, threads=6)
    traffic.start()
    try:
        time.sleep(1)
        stack.postgres.stop()
        stopped = time.monotonic()
        time.sleep(OUTAGE_SECONDS)
        restarting = time.monotonic()
        stack.postgres.start()
        restarted = time.monotonic()
        full_at = wait_for_full_service(traffic, expected, restarted)
    finally:
        traffic.stop()
    answers = traffic.answers

    wrong = [a for a in answers if a.status != expected[a.endpoint] and not is_unavailable(a)]
    assert not wrong, f"answers neither as before nor a 503 with Retry-After: {wrong[:5]}"
    down = [a for a in answers if a.started >= stopped and a.ended <= restarting]
    needing = [a for a in down
               if expected[a.endpoint] < 400 and a.endpoint not in WITHOUT_POSTGRES]
    assert needing and all(is_unavailable(a) for a in needing), [
        a for a in needing if not is_unavailable(a)][:5]
    down_endpoints = {a.endpoint for a in down}
    assert down_endpoints == set(expected), set(expected) - down_endpoints
    assert full_at is not None, (
        f"not every endpoint answered as before within {GIVE_UP_SECONDS} s of the restart")
    late = [a for a in answers if a.started >= full_at and a.status != expected[a.endpoint]]
    assert not late, late[:5]

    after = [a for a in answers if a.started >= restarted]
    first_ok = min((a.ended for a in after if a.status == expected[a.endpoint]), default=None)
    print(f"\n[faults] PostgreSQL down {restarting - stopped:.1f} s under 6 threads of traffic "
          f"over {len(expected)} endpoints: {len(down)} requests answered while down, "
          f"{sum(is_unavailable(a) for a in down)} of them 503 service_unavailable with "
          f"Retry-After, 0 other errors; {len(answers)} requests in all, "
          f"{sum(is_unavailable(a) for a in answers)} 503s in all")
    print(f"[faults] after the restart ({restarted - restarting:.1f} s to start): first success "
          f"{first_ok - restarted:.1f} s, last failure {full_at - restarted:.1f} s (every "
          f"endpoint answering as before since); "
          f"{sum(is_unavailable(a) for a in after)} 503s after the restart")


def seeded_partner(stack: Stack) -> Partner:
    pull = stack.issue("pull", rate_limit=100000)
    push = stack.issue("push", rate_limit=100000)
    partner = Partner(pull.token, push.token, booking_ref="", batch_id="")
    client = stack.app.test_client()
    booking = partner.endpoints()["POST /bookings"](client)
    assert booking.status_code == 201, booking.get_json()
    partner.booking_ref = booking.get_json()["data"]["booking"]["partner_reference"]
    batch = partner.endpoints()["PUT /ari"](client)
    assert batch.status_code == 202, batch.get_json()
    partner.batch_id = batch.get_json()["data"]["batch_id"]
    return partner


def wait_for_full_service(traffic: Traffic, expected: dict, restarted: float) -> float | None:
    """The time after which every endpoint has answered as before and nothing has failed, or
    None after GIVE_UP_SECONDS."""
    deadline = restarted + GIVE_UP_SECONDS
    while time.monotonic() < deadline:
        time.sleep(0.2)
        answers = [a for a in traffic.snapshot() if a.started >= restarted]
        failures = [a.ended for a in answers if a.status != expected[a.endpoint]]
        since = max(failures, default=restarted)
        healthy = {a.endpoint for a in answers if a.started >= since}
        if healthy == set(expected):
            return since
    return None
