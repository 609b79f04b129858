"""A slow or failing endpoint delays no other endpoint's deliveries (contract 12.3): one that
never answers holds at most its share of the worker's requests, and the other endpoints'
deliveries go on meanwhile."""

from __future__ import annotations

import httpx

from connectivity.auth.credentials import SigningVault
from connectivity.webhooks.delivering import Senders
from devtools.webhook_receiver import receiver
from tests.webhooks.conftest import created
from tests.webhooks.delivery import record_event, run_rounds


def test_an_endpoint_that_does_not_answer_delays_no_other(client, pull, db, settings):
    senders = Senders(db, SigningVault(settings.secret_key), (1,), concurrency=4,
                      per_endpoint=2, timeout=httpx.Timeout(30.0, connect=5.0))
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
