"""A slow or failing endpoint delays no other endpoint's deliveries, and no partner's endpoints,
however many and however slow, delay another partner's (contract 12.3): an endpoint holds at
most its share of the worker's requests, a partner in one environment at most its own, and the
others' deliveries go on meanwhile."""

from __future__ import annotations

import time

from connectivity.auth.credentials import SigningVault
from connectivity.webhooks.delivering import Senders
from devtools.webhook_receiver import receiver
from tests.support.envelope import assert_envelope_success
from tests.support.signing import bearer
from tests.webhooks.conftest import ENDPOINTS, created
from tests.webhooks.delivery import closed_port, delivery_rows, record_event, run_rounds


def test_an_endpoint_that_does_not_answer_delays_no_other(client, pull, db, settings):
    senders = Senders(db, SigningVault(settings.secret_key), (1,), concurrency=4,
                      per_endpoint=2, allow_loopback=True, attempt_seconds=30)
    try:
        with receiver(holding=True) as stuck, receiver() as healthy:
            created(client, pull, stuck.url)
            created(client, pull, healthy.url)
            events = [record_event(db) for _ in range(12)]
            # Every event reaches the healthy endpoint while the stuck one still holds its
            # first requests unanswered.
            run_rounds(db, senders, lambda: len(healthy.received) == len(events))
            assert not stuck.open.is_set()
            assert {r.headers["webhook-id"] for r in healthy.received} == set(events)
            assert len(stuck.wait_for(2)) == 2  # its share, and no more
            stuck.open.set()
            run_rounds(db, senders, lambda: len(stuck.received) == len(events))
    finally:
        senders.close()


SHARE = 4


def test_a_partners_trickling_endpoints_hold_its_share_and_delay_no_one_else(
        client, pull, issue, db, settings):
    """The probe's attack, scaled: 40 deliveries (pings) to acme's 10 sandbox endpoints, each
    answered a byte a second, against a worker of 16 senders (4 per endpoint would let acme take
    them all). acme's sandbox holds its share and no more; globex's ping, and acme's own production,
    are sent while every one of acme's trickles is still running: they waited for none of
    them."""
    senders = Senders(db, SigningVault(settings.secret_key), (60,), concurrency=16,
                      per_endpoint=4, per_partner=SHARE, allow_loopback=True)
    globex = bearer(issue("pull", partner="globex").token)
    live = bearer(issue("pull", environment="production").token)
    try:
        with receiver(trickle=30) as slow, receiver() as healthy:
            # Pings: due at once, whatever holds the event log's horizon back.
            for n in range(10):
                trickling = created(client, pull, f"{slow.url}?endpoint={n}")["endpoint"]
                for _ in range(4):
                    assert_envelope_success(client.post(
                        f"{ENDPOINTS}/{trickling['endpoint_id']}/ping", headers=pull), 202)
            other = created(client, globex, healthy.url)["endpoint"]["endpoint_id"]
            production = created(client, live, "https://93.184.216.34/hook")["endpoint"]
            # Refused at send time (production sends https only), at once: the attempt shows
            # that acme's production was served while its sandbox held its share.
            db.run(lambda conn: conn.execute(
                "UPDATE webhook_endpoints SET url = %s WHERE id = %s",
                (f"http://127.0.0.1:{closed_port()}/", production["endpoint_id"])))
            run_rounds(db, senders, lambda: len(slow.open_now()) == SHARE)

            asked = time.monotonic()
            ping = assert_envelope_success(client.post(f"{ENDPOINTS}/{other}/ping",
                                                       headers=globex), 202)
            assert_envelope_success(client.post(
                f"{ENDPOINTS}/{production['endpoint_id']}/ping", headers=live), 202)
            run_rounds(db, senders, lambda: len(healthy.received) == 1 and [
                d["attempts"] for d in delivery_rows(db, production["endpoint_id"])] == [1])
            waited = time.monotonic() - asked
            still_trickling = slow.open_now()
    finally:
        senders.close()
    assert healthy.received[0].headers["webhook-id"] == ping["event_id"]
    # None of acme's trickles had ended: nobody waited for one.
    assert len(still_trickling) == SHARE and len(slow.connections) == SHARE
    assert slow.most_at_once() == SHARE
    print(f"globex's ping sent {waited * 1000:.0f} ms after it was asked for")
