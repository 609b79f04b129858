"""The webhooks' figures at scrape time (contract 12.3; docs/operations.md, "Webhooks"): read
from PostgreSQL, where the deliveries are, as the ARI figures are (stored.py): the webhook
worker processes keep no counters a scrape could sum."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric

from connectivity.store.queries import queries

DELIVERY_STATUSES = ("delivered", "pending", "failed")
ENDPOINT_STATUSES = ("enabled", "disabled")


def read_webhook_state(conn, window_seconds: float) -> dict:
    q = queries().metrics
    return {"recent": {r["status"]: r["deliveries"]
                       for r in q.recent_webhook_deliveries(conn, window_seconds=window_seconds)},
            "pending": q.pending_webhook_deliveries(conn),
            "endpoints": {r["status"]: r["endpoints"] for r in q.webhook_endpoints_by_status(conn)}}


def webhook_metrics(state: dict, window_seconds: float) -> Iterator[Metric]:
    recent = GaugeMetricFamily(
        "pcs_webhook_deliveries_recent",
        f"Webhook deliveries attempted in the last {window_seconds:.0f} s, by their status now "
        "(pending: to be retried, or in flight).", labels=["status"])
    for status in DELIVERY_STATUSES:
        recent.add_metric([status], state["recent"].get(status, 0))
    yield recent
    pending = GaugeMetricFamily(
        "pcs_webhook_deliveries_pending", "Webhook deliveries not yet delivered nor failed, per "
        "endpoint.", labels=["partner", "endpoint_id"])
    oldest = GaugeMetricFamily(
        "pcs_webhook_oldest_pending_age_seconds",
        "Age of each endpoint's oldest pending webhook delivery (since its event was read from "
        "the log); endpoints with none pending are not listed.", labels=["partner", "endpoint_id"])
    for row in state["pending"]:
        labels = [row["partner"], row["endpoint_id"]]
        pending.add_metric(labels, row["deliveries"])
        oldest.add_metric(labels, row["oldest_age_seconds"])
    yield pending
    yield oldest
    endpoints = GaugeMetricFamily(
        "pcs_webhook_endpoints", "Webhook endpoints by status (disabled: failing for 5 days).",
        labels=["status"])
    for status in ENDPOINT_STATUSES:
        endpoints.add_metric([status], state["endpoints"].get(status, 0))
    yield endpoints
