"""The hotel bookings nobody acknowledged (contract 13.2), read at scrape time from the
bookings themselves, as the other stored figures are (stored.py): per receiving partner and
environment, how many wait for the hotel's acknowledgement and how long the oldest has waited
(docs/operations.md, "Hotel bookings nobody acknowledged")."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric

from connectivity.store.queries import queries


def read_unacknowledged(conn) -> dict[tuple[str, str], dict]:
    """{(partner, environment): {"bookings", "oldest_age_seconds"}} for every receiving partner,
    0 for one with nothing waiting."""
    q = queries().metrics
    state = {(r["partner"], r["environment"]): {"bookings": 0, "oldest_age_seconds": 0.0}
             for r in q.hotel_booking_receivers(conn)}
    for row in q.unacknowledged_hotel_bookings(conn):
        state[(row["partner"], row["environment"])] = {
            "bookings": row["bookings"], "oldest_age_seconds": row["oldest_age_seconds"]}
    return state


def unacknowledged_metrics(state: dict[tuple[str, str], dict]) -> Iterator[Metric]:
    waiting = GaugeMetricFamily(
        "pcs_hotel_bookings_unacknowledged",
        "Hotel bookings whose current status the receiving partner (the hotel's channel "
        "manager) has not acknowledged, per receiving partner and environment.",
        labels=["partner", "environment"])
    oldest = GaugeMetricFamily(
        "pcs_hotel_bookings_unacknowledged_oldest_age_seconds",
        "How long the receiving partner's oldest unacknowledged hotel booking has waited (since "
        "it was made, or since its cancellation once its confirmation was acknowledged); 0 when "
        "none waits.", labels=["partner", "environment"])
    for (partner, environment), row in sorted(state.items()):
        waiting.add_metric([partner, environment], row["bookings"])
        oldest.add_metric([partner, environment], row["oldest_age_seconds"])
    yield waiting
    yield oldest
