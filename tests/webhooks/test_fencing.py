"""One delivery is never in flight twice at once (contract 12.3): a claim leases the delivery
for far longer than an attempt can take, a replay asked during an attempt waits for it, and a
sender whose lease ran out (stalled) records nothing over the claim that followed it. The
deliveries are pings: due at once, whatever holds the event log's horizon back."""

from __future__ import annotations

import time

import pytest

from connectivity.auth.credentials import SigningVault
from connectivity.store.queries import queries
from connectivity.webhooks.delivering import Senders, record_attempt
from connectivity.webhooks.sender import Attempt
from devtools.webhook_receiver import receiver
from tests.support.envelope import assert_envelope_success
from tests.webhooks.conftest import ENDPOINTS, created
from tests.webhooks.delivery import delivery_rows, run_rounds


def ping(client, headers, endpoint_id: str) -> str:
    """A ping of the endpoint: its event id."""
    return assert_envelope_success(client.post(f"{ENDPOINTS}/{endpoint_id}/ping",
                                               headers=headers), 202)["event_id"]


def endpoint_at(client, headers, url: str) -> str:
    return created(client, headers, url)["endpoint"]["endpoint_id"]


def test_a_lease_does_not_run_out_under_a_live_attempt(client, pull, db, settings):
    """The probe's case, shortened: a receiver trickles its answer for longer than the lease
    (here 9 s). The attempt ends at its deadline (2 s), well inside its lease, so no second
    claim ever sends the delivery beside it; the retries come one after another."""
    senders = Senders(db, SigningVault(settings.secret_key), (1,) * 10, concurrency=4,
                      per_endpoint=2, allow_loopback=True, attempt_seconds=2, lease_seconds=9)
    try:
        with receiver(trickle=12) as slow:
            event_id = ping(client, pull, endpoint_at(client, pull, slow.url))
            run_rounds(db, senders, lambda: slow.received)
            # Past the first attempt's lease, and past its trickle's end.
            until = time.monotonic() + 13
            run_rounds(db, senders, lambda: time.monotonic() > until)
            assert slow.most_at_once(event_id, slack=0.5) == 1
    finally:
        senders.close()  # the attempt in flight ends and is recorded
    (row,) = delivery_rows(db)
    assert row["attempts"] == len(slow.received) >= 4


def test_a_replay_asked_during_an_attempt_is_sent_after_it_not_beside_it(
        client, pull, db, settings):
    senders = Senders(db, SigningVault(settings.secret_key), (60,), concurrency=4,
                      per_endpoint=2, allow_loopback=True, attempt_seconds=3)
    try:
        with receiver(trickle=20) as slow:
            endpoint_id = endpoint_at(client, pull, slow.url)
            event_id = ping(client, pull, endpoint_id)
            run_rounds(db, senders, lambda: len(slow.open_now()) == 1)
            assert_envelope_success(client.post(
                f"{ENDPOINTS}/{endpoint_id}/deliveries/{event_id}/retry", headers=pull), 202)
            run_rounds(db, senders, lambda: len(slow.received) == 2)
            assert slow.most_at_once(event_id, slack=0.5) == 1
            run_rounds(db, senders, lambda: senders.in_flight() == 0)
    finally:
        senders.close()
    (row,) = delivery_rows(db)
    # Both attempts timed out; the first one's (the replay was asked during it) did not drop
    # the replay, and after the replay the schedule goes on (its next time, 60 s on).
    assert (row["attempts"], row["status"]) == (2, "pending")
    assert row["last_error"].startswith("timed out")


def _claim(db, lease_seconds: float = 60):
    def claim(conn):
        partner_id = conn.execute("SELECT id FROM partners WHERE code = 'acme'").fetchone()["id"]
        return queries().webhooks.claim_due(conn, partner_id=partner_id, environment="sandbox",
                                            busy_endpoints=[], per_endpoint=1, max_count=1,
                                            lease_seconds=lease_seconds)
    return db.run(claim)


@pytest.mark.parametrize("late_outcome", [Attempt(True, 204, None),
                                          Attempt(False, 500, "the endpoint answered 500")])
def test_a_sender_whose_lease_ran_out_records_nothing_over_the_next_claim(
        client, pull, db, late_outcome):
    ping(client, pull, endpoint_at(client, pull, "http://127.0.0.1:8080/hook"))
    (stalled,) = _claim(db)
    assert _claim(db) == []  # leased: nobody else takes it
    # The lease runs out (the stalled sender's process froze, say); another claim takes it.
    db.run(lambda conn: conn.execute(
        "UPDATE webhook_deliveries SET leased_until = now() - interval '1 second'"))
    (current,) = _claim(db)
    assert current["claim"] == stalled["claim"] + 1
    assert db.run(record_attempt, stalled, late_outcome, (60,)) is None
    (row,) = delivery_rows(db)
    assert (row["status"], row["attempts"], row["last_status_code"]) == ("pending", 2, None)
    assert db.run(record_attempt, current, Attempt(False, 503, "the endpoint answered 503"),
                  (60,)) == "pending"
    assert delivery_rows(db)[0]["last_status_code"] == 503
    # Recorded: the lease ended with the attempt, and the endpoint's health counted it once.
    assert db.run(lambda conn: conn.execute(
        "SELECT leased_until FROM webhook_deliveries").fetchone()["leased_until"]) is None
