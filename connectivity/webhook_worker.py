"""The Procfile's `webhooks` process: it delivers the partners' webhooks (contract 12.3).

A process of its own, apart from the ARI worker: a delivery waits on a partner's server (up to
10 s), an ARI apply on nothing but PostgreSQL, and neither should queue behind the other. Its
queue is PostgreSQL's `webhook_deliveries` (the truth of what is owed, due times and claims):
each round it feeds the enabled endpoints from the event log (webhooks/dispatch.py) and claims
due deliveries for its free threads (webhooks/delivering.py). It rounds again at once while
there is work, else after POLL_SECONDS or as soon as a send ends; the first attempt of an event
follows its readability in the log by at most about POLL_SECONDS.

Several processes may run (docs/operations.md, "Webhooks"). SIGTERM: no new claims; the
attempts in flight end by their deadline (10 s at most, however slowly a receiver answers) and
are recorded, then the process exits.

`python -m connectivity.webhook_worker [--once]`: --once feeds and sends until nothing is due."""

from __future__ import annotations

import argparse
import signal
import threading

import psycopg
import redis
import structlog
from psycopg_pool import PoolTimeout

from connectivity.auth.credentials import SigningVault
from connectivity.logs import configure_logging
from connectivity.settings import Settings
from connectivity.store.database import Database
from connectivity.store.read_fence import ReadFence, primary_wal_position
from connectivity.webhooks.delivering import Senders
from connectivity.webhooks.dispatch import feed_endpoints

POLL_SECONDS = 0.2
# After PostgreSQL failed a round.
BACKOFF_SECONDS = 1.0

log = structlog.get_logger(__name__)


def webhook_database(settings: Settings) -> Database:
    # The round's statements and each sender's record, one at a time per thread: a few
    # connections serve many threads, which spend their time waiting on the partners.
    return Database(settings.database_url, max_size=min(8, settings.webhook_worker_concurrency),
                    timeout=settings.db_pool_timeout_seconds, application_name="pcs-webhooks",
                    statement_timeout_seconds=settings.db_statement_timeout_seconds,
                    idle_in_transaction_timeout_seconds=(
                        settings.db_idle_in_transaction_timeout_seconds))


def read_fence(settings: Settings, db: Database) -> ReadFence:
    """The read fence the senders move before they deliver events (store/read_fence.py): short
    Redis timeouts, so that Redis down delays a round little (the move only warns then)."""
    client = redis.Redis.from_url(settings.redis_url, socket_timeout=0.25,
                                  socket_connect_timeout=0.25)
    return ReadFence(client, settings.redis_prefix,
                     wal_position=(lambda: primary_wal_position(db))
                     if settings.database_read_url else None)


def run(settings: Settings, stop: threading.Event, *, once: bool = False, **sender_options) -> None:
    db = webhook_database(settings)
    sender_options.setdefault("fence", read_fence(settings, db))
    senders = Senders(db, SigningVault(settings.secret_key, settings.secret_key_previous),
                      settings.webhook_retry_schedule,
                      concurrency=settings.webhook_worker_concurrency,
                      per_endpoint=settings.webhook_endpoint_concurrency,
                      per_partner=settings.webhook_partner_concurrency,
                      allow_loopback=settings.webhook_allow_loopback, **sender_options)
    log.info("webhook_worker_started", concurrency=settings.webhook_worker_concurrency,
             per_endpoint=settings.webhook_endpoint_concurrency,
             per_partner=settings.webhook_partner_concurrency,
             allow_loopback=settings.webhook_allow_loopback)
    try:
        while not stop.is_set():
            senders.finished.clear()
            try:
                busy = feed_endpoints(db) + senders.claim_and_send()
            except (psycopg.Error, PoolTimeout) as exc:
                log.warning("webhook_round_failed", error=type(exc).__name__)
                stop.wait(BACKOFF_SECONDS)
                continue
            if busy:
                continue
            if once and not senders.in_flight():
                break
            senders.finished.wait(POLL_SECONDS)
    finally:
        senders.close()
        db.close()
        log.info("webhook_worker_stopped")


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(prog="python -m connectivity.webhook_worker")
    options.add_argument("--once", action="store_true",
                         help="exit once nothing is due and nothing is in flight")
    args = options.parse_args(argv)
    settings = Settings.from_env()
    configure_logging(settings.log_level)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    run(settings, stop, once=args.once)


if __name__ == "__main__":
    main()
