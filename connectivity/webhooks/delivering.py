"""The webhook worker's senders: claim due deliveries, send each from a thread of a bounded
pool, record what came of it.

A slow endpoint delays no other (contract 12.3): an endpoint holds at most
`per_endpoint` of the `concurrency` requests in flight, so one timing out on every request
(10 s each) keeps at most that many threads, and the others go on sending to the rest. The
claim in PostgreSQL (sql/queries/webhooks/deliveries.sql claim_due) makes several worker
processes share the work without sending one delivery twice at once.

After a failed attempt the delivery is due again on the retry schedule (schedule.py) or
`failed`; an endpoint all of whose attempts have failed for 5 days is disabled."""

from __future__ import annotations

import datetime as dt
import ssl
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import structlog

from connectivity.auth.credentials import SigningVault
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.webhooks.destination import Resolver, system_resolver
from connectivity.webhooks.schedule import next_attempt_at
from connectivity.webhooks.sender import TIMEOUT, Attempt, attempt_delivery

log = structlog.get_logger(__name__)

DISABLE_AFTER = dt.timedelta(days=5)
# A claimed delivery is due again after this, should its sender die: longer than an attempt
# can take (connect 5 s + answer 10 s).
LEASE_SECONDS = 60
# Partners whose due deliveries one round claims.
PARTNERS_PER_ROUND = 100


class Senders:
    def __init__(self, db: Database, vault: SigningVault, schedule: tuple[int, ...], *,
                 concurrency: int, per_endpoint: int, resolver: Resolver = system_resolver,
                 timeout=TIMEOUT, tls: ssl.SSLContext | None = None):
        self.db = db
        self.vault = vault
        self.schedule = schedule
        self.concurrency = concurrency
        self.per_endpoint = per_endpoint
        self.resolver = resolver
        self.timeout = timeout
        self.tls = tls
        self.finished = threading.Event()  # set whenever a send ends: room for another
        self._lock = threading.Lock()
        self._in_flight: Counter[str] = Counter()
        self._pool = ThreadPoolExecutor(concurrency, thread_name_prefix="webhook-send")

    def in_flight(self) -> int:
        with self._lock:
            return sum(self._in_flight.values())

    def claim_and_send(self) -> int:
        """Claims as many due deliveries as there are free threads and starts sending them."""
        started = 0
        with self._lock:
            free = self.concurrency - sum(self._in_flight.values())
            busy = [e for e, n in self._in_flight.items() if n >= self.per_endpoint]
        if free <= 0:
            return 0
        with self.db.connection() as conn:
            partners = [r["partner_id"] for r in queries().webhooks.partners_due(
                conn, max_count=PARTNERS_PER_ROUND)]
        for partner_id in partners:
            if free <= 0:
                break
            claimed = self.db.run(_claim, partner_id, busy, self.per_endpoint, free)
            for delivery in claimed:
                with self._lock:
                    self._in_flight[delivery["endpoint_id"]] += 1
                self._pool.submit(self._send, delivery)
            free -= len(claimed)
            started += len(claimed)
        return started

    def _send(self, delivery: dict[str, Any]) -> None:
        try:
            secret = self.vault.open(delivery["secret_sealed"])
            if secret is None:
                attempt = Attempt(False, None, "the endpoint's secret was sealed under a "
                                               "SECRET_KEY the service no longer holds")
            else:
                attempt = attempt_delivery(delivery["url"], delivery["environment"], secret,
                                           delivery["event_id"], delivery["body"].encode(),
                                           resolver=self.resolver, timeout=self.timeout,
                                           tls=self.tls)
            self.db.run(record_attempt, delivery, attempt, self.schedule)
            log.info("webhook_attempt", endpoint_id=delivery["endpoint_id"],
                     event_id=delivery["event_id"], attempt=delivery["attempts"],
                     delivered=attempt.delivered, status_code=attempt.status_code,
                     error=attempt.error)
        except Exception as exc:  # noqa: BLE001 - the claim's lease makes it due again
            log.error("webhook_attempt_not_recorded", endpoint_id=delivery["endpoint_id"],
                      event_id=delivery["event_id"], error=type(exc).__name__)
        finally:
            with self._lock:
                self._in_flight[delivery["endpoint_id"]] -= 1
                if not self._in_flight[delivery["endpoint_id"]]:
                    del self._in_flight[delivery["endpoint_id"]]
            self.finished.set()

    def close(self) -> None:
        """Lets the requests in flight end (each within its timeout)."""
        self._pool.shutdown(wait=True)


def _claim(conn, partner_id: int, busy: list[str], per_endpoint: int,
           max_count: int) -> list[dict[str, Any]]:
    return queries().webhooks.claim_due(conn, partner_id=partner_id, busy_endpoints=busy,
                                        per_endpoint=per_endpoint, max_count=max_count,
                                        lease_seconds=LEASE_SECONDS)


def record_attempt(conn, delivery: dict[str, Any], attempt: Attempt,
                   schedule: tuple[int, ...]) -> str | None:
    """The attempt's outcome, recorded only by the latest claim's holder; the delivery's status
    then (None when a later claim took it over)."""
    q = queries().webhooks
    key = dict(partner_id=delivery["partner_id"], endpoint_id=delivery["endpoint_id"])
    if attempt.delivered:
        recorded = q.record_delivered(conn, **key, event_id=delivery["event_id"],
                                      claim=delivery["claim"], status_code=attempt.status_code)
        q.endpoint_answered(conn, **key)
        return None if recorded is None else "delivered"
    # The attempt's start decides the next time: an attempt that took the whole timeout does
    # not skip the retry that fell due meanwhile.
    retry_at = next_attempt_at(schedule, delivery["first_attempt_at"],
                               delivery["last_attempt_at"])
    recorded = q.record_failed_attempt(conn, **key, event_id=delivery["event_id"],
                                       claim=delivery["claim"], status_code=attempt.status_code,
                                       error=attempt.error, next_attempt_at=retry_at)
    attempted_at = delivery["last_attempt_at"]
    health = q.endpoint_failed(conn, **key, attempted_at=attempted_at,
                               failing_before=attempted_at - DISABLE_AFTER)
    if health is not None and health["disabled_now"]:
        log.warning("webhook_endpoint_disabled", endpoint_id=delivery["endpoint_id"],
                    failing_for_days=DISABLE_AFTER.days)
    return None if recorded is None else recorded["status"]
