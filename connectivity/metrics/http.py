"""Request metrics, counted once per answered request in an `after_request` hook, so every
answer counts whatever produced it (a view, a guard's 401/429, a 404 from routing, a 5xx).

Labels carry no partner data and stay few: `endpoint` is the matched route's rule
(`/api/connectivity/v1/bookings/<reference:reference>`), never the raw path, and `unmatched`
when no route matched; `status` is the HTTP status; booking outcomes are the contract's error
codes, a closed list."""

from __future__ import annotations

import os
import time

from flask import Response, g, request
from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics

# prometheus-client picked its value storage when first imported (just above), by this same
# test: /metrics must read the values the way they are stored, whatever the environment says
# later on.
MULTIPROCESS = "PROMETHEUS_MULTIPROC_DIR" in os.environ

# No `_created` series: multiprocess mode has none, and both modes should read alike.
disable_created_metrics()

UNMATCHED = "unmatched"
# Any token is a valid HTTP method: a client inventing methods must not invent series.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
BOOKING_ENDPOINT = "bookings.create_booking"
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0,
                   30.0)

# This module's own registry (not prometheus-client's global one): in single-process mode
# (tests, `flask run`) it is what /metrics exposes; under gunicorn the values also go to the
# multiprocess files, which /metrics reads instead.
REGISTRY = CollectorRegistry()

REQUESTS = Counter(
    "pcs_http_requests", "HTTP requests answered, by route, method and status.",
    ("endpoint", "method", "status"), registry=REGISTRY)
LATENCY = Histogram(
    "pcs_http_request_duration_seconds",
    "Time from the first request hook to the response, by route and method.",
    ("endpoint", "method"), buckets=LATENCY_BUCKETS, registry=REGISTRY)
RATE_LIMITED = Counter(
    "pcs_rate_limit_rejections", "Requests refused with 429 rate_limited, by route.",
    ("endpoint",), registry=REGISTRY)
BOOKINGS = Counter(
    "pcs_bookings", "POST /bookings answers by outcome: created (201), replay (200) or the "
    "error code (sold_out, not_sellable, price_mismatch, validation_failed, ...).",
    ("outcome",), registry=REGISTRY)


def endpoint_label() -> str:
    rule = request.url_rule
    return rule.rule if rule is not None else UNMATCHED


def method_label() -> str:
    return request.method if request.method in METHODS else "other"


def booking_outcome(status: int) -> str:
    if status == 201:
        return "created"
    if status == 200:
        return "replay"
    # Set by envelope.error_response for every failure answered in the envelope.
    return getattr(g, "error_code", None) or f"http_{status}"


def record_request(response: Response) -> Response:
    endpoint, method = endpoint_label(), method_label()
    status = response.status_code
    REQUESTS.labels(endpoint, method, str(status)).inc()
    if "started" in g:  # set by wire.assign_request_id, the first request hook
        LATENCY.labels(endpoint, method).observe(time.perf_counter() - g.started)
    if status == 429:
        RATE_LIMITED.labels(endpoint).inc()
    if request.endpoint == BOOKING_ENDPOINT and request.method == "POST":
        BOOKINGS.labels(booking_outcome(status)).inc()
    return response
