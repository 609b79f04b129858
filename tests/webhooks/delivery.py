"""Helpers of the delivery tests: events written to the log as their causes write them, and the
webhook worker's rounds run in the test's process until a condition holds."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from connectivity.events import log as event_log
from connectivity.webhooks.delivering import Senders
from connectivity.webhooks.dispatch import feed_endpoints


def record_event(db, type: str = "booking.confirmed", partner: str = "acme",
                 environment: str = "sandbox", data: dict | None = None) -> str:
    def use_case(conn):
        row = conn.execute(
            "SELECT pp.property_id, pp.partner_id FROM partner_properties pp "
            "JOIN partners pa ON pa.id = pp.partner_id JOIN properties p ON p.id = pp.property_id "
            "WHERE pa.code = %s AND p.environment = %s ORDER BY pp.property_id LIMIT 1",
            (partner, environment)).fetchone()
        return event_log.record(conn, property_id=row["property_id"],
                                partner_id=row["partner_id"], environment=environment,
                                type=type, data=data or {"booking": {"reference": "B1"}})
    return db.run(use_case)


def run_rounds(db, senders: Senders, until: Callable[[], bool], timeout: float = 30.0) -> None:
    """The worker's loop (webhook_worker.run) until `until()` holds; fails past `timeout`."""
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, "the condition did not come about in time"
        senders.finished.clear()
        if not feed_endpoints(db) + senders.claim_and_send():
            senders.finished.wait(0.05)


def delivery_rows(db, endpoint_id: str | None = None) -> list[dict]:
    return db.run(lambda conn: conn.execute(
        "SELECT event_id, event_type, status, attempts, last_status_code, last_error, "
        "next_attempt_at, first_attempt_at FROM webhook_deliveries "
        "WHERE %(e)s::text IS NULL OR endpoint_id = %(e)s ORDER BY seq",
        {"e": endpoint_id}).fetchall())


def closed_port() -> int:
    """A loopback port nothing listens on (one the system just handed out and took back)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
