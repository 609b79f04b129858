"""Figures read at scrape time from where their truth lives, not counted by a process.

ARI batches are applied by the worker processes, on other machines than the web
processes: counters kept there could not be summed by a web scrape, and would restart from
zero with every deploy. PostgreSQL already holds each batch's status and times, and Redis the
jobs waiting, so any web process reads the same figures from them at scrape time. Every
statement reads a bounded number of index rows (sql/queries/metrics/stored.sql) under a short
statement timeout; a source that cannot be read is reported by `pcs_metrics_source_up` = 0
instead of failing the scrape (the request figures are still worth having then)."""

from __future__ import annotations

import math
from typing import Iterator

import structlog
from prometheus_client.core import GaugeHistogramMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from connectivity.ari.queue import BatchQueue
from connectivity.events.log import EVENT_TYPES
from connectivity.metrics.hotel_bookings import read_unacknowledged, unacknowledged_metrics
from connectivity.metrics.webhooks import read_webhook_state, webhook_metrics
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.settings import Settings

log = structlog.get_logger(__name__)

UNFINISHED = ("queued", "processing")
FINISHED = ("applied", "partially_applied", "rejected", "failed")
# The window of the recent-batch figures; with a 15-60 s scrape interval every batch is seen by
# several scrapes.
RECENT_WINDOW_SECONDS = 300.0
# At most this many of the newest batches are looked at for the recent figures (an index range),
# so a scrape stays cheap however large ari_batches grows. Only a backlog of more batches
# accepted after one that finished within the window would hide that one.
RECENT_SCAN_LIMIT = 50_000
APPLY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0)
STATEMENT_TIMEOUT_MS = 2000
# What one worker process applies per second of small batches, measured (docs/benchmarks.md,
# "ARI at channel-manager volume"); ARI_WORKER_BATCHES_PER_SECOND sets a deployment's own.
DEFAULT_WORKER_BATCHES_PER_SECOND = Settings.ari_worker_batches_per_second


class StoredStateCollector(Collector):
    def __init__(self, db: Database, batch_queue: BatchQueue,
                 worker_batches_per_second: float = DEFAULT_WORKER_BATCHES_PER_SECOND):
        self._db = db
        self._queue = batch_queue
        self._worker_rate = worker_batches_per_second

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("pcs_metrics_source_up", "1 when this scrape could read the "
                               "source of the stored-state figures, 0 when it could not.",
                               labels=["source"])
        try:
            yield from self._from_postgresql()
            up.add_metric(["postgresql"], 1)
        except Exception as exc:  # noqa: BLE001 - reported as a figure; the scrape goes on
            log.warning("metrics_source_unavailable", source="postgresql",
                        error=type(exc).__name__)
            up.add_metric(["postgresql"], 0)
        try:
            depth = self._queue.depth()
            yield GaugeMetricFamily("pcs_ari_queue_depth", "ARI jobs waiting on the Redis "
                                    "queue for a worker.", value=depth)
            up.add_metric(["redis"], 1)
        except Exception as exc:  # noqa: BLE001
            log.warning("metrics_source_unavailable", source="redis", error=type(exc).__name__)
            up.add_metric(["redis"], 0)
        yield up

    def _from_postgresql(self) -> Iterator[Metric]:
        state = self._db.run(read_stored_state)
        unfinished, recent = state["unfinished"], state["recent"]
        accepted, open_items = state["accepted"], state["open_items"]

        batches = GaugeMetricFamily(
            "pcs_ari_batches_unfinished", "ARI batches accepted and not finished, by status.",
            labels=["status"])
        oldest = GaugeMetricFamily(
            "pcs_ari_batches_oldest_unfinished_age_seconds",
            "Age of the oldest unfinished ARI batch (since it was accepted), by status; 0 when "
            "there is none.", labels=["status"])
        for status in UNFINISHED:
            row = unfinished.get(status)
            batches.add_metric([status], row["batches"] if row else 0)
            oldest.add_metric([status], row["oldest_age_seconds"] if row else 0)
        yield batches
        yield oldest

        finished = GaugeMetricFamily(
            "pcs_ari_batches_finished_recent",
            f"ARI batches finished in the last {RECENT_WINDOW_SECONDS:.0f} s, by status.",
            labels=["status"])
        counts = dict.fromkeys(FINISHED, 0)
        for row in recent:
            counts[row["status"]] += row["batches"]
        for status in FINISHED:
            finished.add_metric([status], counts[status])
        yield finished
        yield from self._rates(accepted, counts)
        yield _histogram(
            "pcs_ari_batch_apply_seconds",
            f"Time the worker took to apply each ARI batch finished in the last "
            f"{RECENT_WINDOW_SECONDS:.0f} s (started_at to applied_at of its last attempt).",
            recent, "apply_bucket", "apply_seconds")
        yield _histogram(
            "pcs_ari_batch_completion_seconds",
            f"Time from acceptance (202) to the outcome of each ARI batch finished in the last "
            f"{RECENT_WINDOW_SECONDS:.0f} s (received_at to applied_at): what a partner waits.",
            recent, "total_bucket", "total_seconds")
        yield GaugeMetricFamily(
            "pcs_reconciliation_items_open",
            "Reconciliation items of pushed reservations not yet resolved "
            "(`flask --app app reconciliation list`).", value=open_items)
        written = GaugeMetricFamily(
            "pcs_events_written_recent",
            f"Events written to the event log in the last {RECENT_WINDOW_SECONDS:.0f} s, by "
            "type (GET /events, webhooks).", labels=["type"])
        for event_type in EVENT_TYPES:
            written.add_metric([event_type], state["events"].get(event_type, 0))
        yield written
        yield from webhook_metrics(state["webhooks"], RECENT_WINDOW_SECONDS)
        yield from unacknowledged_metrics(state["unacknowledged"])


    def _rates(self, accepted: dict, finished: dict[str, int]) -> Iterator[Metric]:
        """What the workers must keep up with, and how many it takes at the measured rate."""
        yield GaugeMetricFamily(
            "pcs_ari_batches_accepted_recent",
            f"ARI batches accepted (202) in the last {RECENT_WINDOW_SECONDS:.0f} s; against "
            "pcs_ari_batches_finished_recent, whether the workers keep up.",
            value=accepted["batches"])
        yield GaugeMetricFamily(
            "pcs_ari_items_accepted_recent",
            f"Items of the ARI batches accepted in the last {RECENT_WINDOW_SECONDS:.0f} s.",
            value=accepted["items"])
        accepted_rate = accepted["batches"] / RECENT_WINDOW_SECONDS
        yield GaugeMetricFamily(
            "pcs_ari_batches_accepted_per_second",
            f"ARI batches accepted per second, averaged over the last "
            f"{RECENT_WINDOW_SECONDS:.0f} s.", value=accepted_rate)
        yield GaugeMetricFamily(
            "pcs_ari_batches_finished_per_second",
            f"ARI batches finished per second, averaged over the last "
            f"{RECENT_WINDOW_SECONDS:.0f} s.",
            value=sum(finished.values()) / RECENT_WINDOW_SECONDS)
        yield GaugeMetricFamily(
            "pcs_ari_workers_needed",
            f"Worker processes the accepted rate needs at {self._worker_rate:g} batches per "
            "second each (ARI_WORKER_BATCHES_PER_SECOND, measured: docs/operations.md 3.1), "
            "at least 1.", value=max(1, math.ceil(accepted_rate / self._worker_rate)))


def read_stored_state(conn) -> dict:
    """The scrape's reads, in one transaction whose statements give up after
    STATEMENT_TIMEOUT_MS: a scrape never waits long on a busy database."""
    q = queries().metrics
    queries().store.settings_for_transaction(
        conn, statement_timeout=str(STATEMENT_TIMEOUT_MS),
        idle_in_transaction_session_timeout=None)
    return {
        "unfinished": {row["status"]: row for row in q.unfinished_batches(conn)},
        "recent": q.recently_finished_batches(
            conn, window_seconds=RECENT_WINDOW_SECONDS, scan_limit=RECENT_SCAN_LIMIT,
            bounds=list(APPLY_BUCKETS)),
        "accepted": q.recently_accepted_batches(
            conn, window_seconds=RECENT_WINDOW_SECONDS, scan_limit=RECENT_SCAN_LIMIT),
        "open_items": q.open_reconciliation_items(conn),
        "events": {row["type"]: row["events"] for row in q.recently_written_events(
            conn, window_seconds=RECENT_WINDOW_SECONDS, scan_limit=RECENT_SCAN_LIMIT)},
        "webhooks": read_webhook_state(conn, RECENT_WINDOW_SECONDS),
        "unacknowledged": read_unacknowledged(conn),
    }


def _histogram(name: str, documentation: str, rows: list[dict], bucket_key: str,
               sum_key: str) -> GaugeHistogramMetricFamily:
    per_bucket = [0] * (len(APPLY_BUCKETS) + 1)
    total = 0.0
    for row in rows:
        if row[bucket_key] is None:
            continue
        per_bucket[row[bucket_key]] += row["batches"]
        total += row[sum_key] or 0.0
    buckets, running = [], 0
    for bound, count in zip((*map(floatToGoString, APPLY_BUCKETS), "+Inf"), per_bucket):
        running += count
        buckets.append((bound, running))
    return GaugeHistogramMetricFamily(name, documentation, buckets=buckets, gsum_value=total)
