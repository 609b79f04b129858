"""The webhook worker's senders: claim due deliveries, send each from a thread of a bounded
pool, record what came of it.

No endpoint delays another's deliveries, and no partner another's (contract 12.3):
- every attempt ends by its deadline (sender.py: 10 s for the whole attempt, however slowly the
  receiver answers), so a thread is never held longer than that;
- an endpoint holds at most `per_endpoint` of this process's `concurrency` threads, and the
  endpoints of one partner in one environment (a tenant) at most `per_partner` together, its
  share: a tenant at its share claims nothing more until one of its attempts ends, so however
  many and however slow its endpoints, the other threads stay free for the other tenants (a
  sandbox key cannot starve production, its own partner's included);
- each round serves the tenants whose deliveries have waited longest first.

A claim (sql/queries/webhooks/deliveries.sql claim_due) is fenced: it leases the delivery for
`lease_seconds`, much longer than an attempt can take, so no other claim takes it while the
attempt runs (one delivery is never in flight twice), and it numbers the claim, so that only the
latest claim's holder records an outcome (a sender stalled past its lease records nothing).

After a failed attempt the delivery is due again on the retry schedule (schedule.py) or
`failed`; an endpoint all of whose attempts have failed for 5 days is disabled."""

from __future__ import annotations

import datetime as dt
import ssl
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import structlog

from connectivity.auth.credentials import SigningVault
from connectivity.settings import default_partner_share
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.store.read_fence import ReadFence
from connectivity.webhooks.destination import Resolver, system_resolver
from connectivity.webhooks.schedule import next_attempt_at
from connectivity.webhooks.sender import ATTEMPT_SECONDS, Attempt, attempt_delivery

log = structlog.get_logger(__name__)

DISABLE_AFTER = dt.timedelta(days=5)
# A claimed delivery is due again after this, should its sender die. An attempt takes at most
# ATTEMPT_SECONDS, and a sender whose claim is older than the lease less an attempt and
# START_MARGIN_SECONDS does not start it: the lease cannot run out under a live attempt. (Its
# recording may come later: the claim's number fences it.)
LEASE_SECONDS = 60
START_MARGIN_SECONDS = 5
# Tenants (partner and environment) whose due deliveries one round claims.
TENANTS_PER_ROUND = 100


class Senders:
    def __init__(self, db: Database, vault: SigningVault, schedule: tuple[int, ...], *,
                 concurrency: int, per_endpoint: int, per_partner: int | None = None,
                 resolver: Resolver = system_resolver, allow_loopback: bool = False,
                 attempt_seconds: float = ATTEMPT_SECONDS, lease_seconds: float = LEASE_SECONDS,
                 tls: ssl.SSLContext | None = None, fence: ReadFence | None = None):
        self.per_partner = per_partner or default_partner_share(concurrency, per_endpoint)
        if not 1 <= per_endpoint <= self.per_partner <= concurrency:
            raise ValueError("1 <= per_endpoint <= per_partner <= concurrency")
        if lease_seconds <= attempt_seconds + START_MARGIN_SECONDS:
            raise ValueError("the lease must outlast an attempt")
        self.db = db
        self.vault = vault
        self.schedule = schedule
        self.concurrency = concurrency
        self.per_endpoint = per_endpoint
        self.resolver = resolver
        self.allow_loopback = allow_loopback
        self.attempt_seconds = attempt_seconds
        self.lease_seconds = lease_seconds
        self.tls = tls
        # Moved before events are sent: their causes are committed, but their writers may not
        # have moved it yet, and a partner told of one reads at once (store/read_fence.py).
        self.fence = fence
        self.finished = threading.Event()  # set whenever a send ends: room for another
        self._lock = threading.Lock()
        self._by_endpoint: Counter[str] = Counter()
        self._by_tenant: Counter[tuple[int, str]] = Counter()
        self._pool = ThreadPoolExecutor(concurrency, thread_name_prefix="webhook-send")

    def in_flight(self) -> int:
        with self._lock:
            return sum(self._by_tenant.values())

    def claim_and_send(self) -> int:
        """Claims due deliveries for the free threads, each tenant within its share, and starts
        sending them."""
        with self._lock:
            free = self.concurrency - sum(self._by_tenant.values())
            if free <= 0:
                return 0
            busy = [e for e, n in self._by_endpoint.items() if n >= self.per_endpoint]
            full = {t for t, n in self._by_tenant.items() if n >= self.per_partner}
        with self.db.connection() as conn:
            due = queries().webhooks.tenants_due(conn, max_count=TENANTS_PER_ROUND + len(full))
        started = 0
        for row in due:
            tenant = (row["partner_id"], row["environment"])
            if tenant in full:
                continue
            if free <= 0:
                break
            with self._lock:
                room = min(free, self.per_partner - self._by_tenant[tenant])
            # Before the claim's statement, whose now() starts the lease: never later than it.
            asked = time.monotonic()
            claimed = self.db.run(_claim, tenant, busy, self.per_endpoint, room,
                                  self.lease_seconds)
            if claimed and not started and self.fence is not None:
                self.fence.move_or_warn()  # once a round, before its first attempt
            for delivery in claimed:
                with self._lock:
                    self._by_endpoint[delivery["endpoint_id"]] += 1
                    self._by_tenant[tenant] += 1
                self._pool.submit(self._send, delivery, tenant, asked)
            free -= len(claimed)
            started += len(claimed)
        return started

    def _send(self, delivery: dict[str, Any], tenant: tuple[int, str], claimed: float) -> None:
        try:
            if time.monotonic() - claimed > (self.lease_seconds - self.attempt_seconds
                                             - START_MARGIN_SECONDS):
                # Started too late to end within the lease (a stalled process): another claim
                # may take it once the lease runs out; this one sends nothing.
                log.warning("webhook_claim_too_old", endpoint_id=delivery["endpoint_id"],
                            event_id=delivery["event_id"])
                return
            attempt = self._attempt(delivery)
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
                for counter, key in ((self._by_endpoint, delivery["endpoint_id"]),
                                     (self._by_tenant, tenant)):
                    counter[key] -= 1
                    if not counter[key]:
                        del counter[key]
            self.finished.set()

    def _attempt(self, delivery: dict[str, Any]) -> Attempt:
        secret = self.vault.open(delivery["secret_sealed"])
        if secret is None:
            return Attempt(False, None, "the endpoint's secret was sealed under a SECRET_KEY "
                                        "the service no longer holds")
        return attempt_delivery(delivery["url"], delivery["environment"], secret,
                                delivery["event_id"], delivery["body"].encode(),
                                resolver=self.resolver, allow_loopback=self.allow_loopback,
                                seconds=self.attempt_seconds, tls=self.tls)

    def close(self) -> None:
        """Lets the attempts in flight end (each by its deadline) and records them."""
        self._pool.shutdown(wait=True)


def _claim(conn, tenant: tuple[int, str], busy: list[str], per_endpoint: int, max_count: int,
           lease_seconds: float) -> list[dict[str, Any]]:
    partner_id, environment = tenant
    return queries().webhooks.claim_due(conn, partner_id=partner_id, environment=environment,
                                        busy_endpoints=busy, per_endpoint=per_endpoint,
                                        max_count=max_count, lease_seconds=lease_seconds)


def record_attempt(conn, delivery: dict[str, Any], attempt: Attempt,
                   schedule: tuple[int, ...]) -> str | None:
    """The attempt's outcome, recorded only by the latest claim's holder, and only while the
    delivery is pending (a deleted endpoint's is failed meanwhile); the delivery's status then
    (None when nothing was recorded: neither it nor the endpoint's health)."""
    q = queries().webhooks
    key = dict(partner_id=delivery["partner_id"], endpoint_id=delivery["endpoint_id"])
    if attempt.delivered:
        recorded = q.record_delivered(conn, **key, event_id=delivery["event_id"],
                                      claim=delivery["claim"], status_code=attempt.status_code)
        if recorded is None:
            return None
        q.endpoint_answered(conn, **key)
        return recorded["status"]
    # The attempt's start decides the next time: an attempt that took the whole timeout does
    # not skip the retry that fell due meanwhile.
    retry_at = next_attempt_at(schedule, delivery["first_attempt_at"],
                               delivery["last_attempt_at"])
    recorded = q.record_failed_attempt(conn, **key, event_id=delivery["event_id"],
                                       claim=delivery["claim"], status_code=attempt.status_code,
                                       error=attempt.error, next_attempt_at=retry_at)
    if recorded is None:
        return None
    attempted_at = delivery["last_attempt_at"]
    health = q.endpoint_failed(conn, **key, attempted_at=attempted_at,
                               failing_before=attempted_at - DISABLE_AFTER)
    if health is not None and health["disabled_now"]:
        log.warning("webhook_endpoint_disabled", endpoint_id=delivery["endpoint_id"],
                    failing_for_days=DISABLE_AFTER.days)
    return recorded["status"]
