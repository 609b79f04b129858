"""Request metrics, counted once per answered request in an `after_request` hook, so every
answer counts whatever produced it (a view, a guard's 401/429, a 404 from routing, a 5xx).

Labels carry no partner data and stay few: `endpoint` is the matched route's rule
(`/api/connectivity/v1/bookings/<reference:reference>`), never the raw path, and `unmatched`
when no route matched; `status` is the HTTP status; booking outcomes are the contract's error
codes, a closed list."""

from __future__ import annotations

import time

from flask import Response, g, request
from prometheus_client import Counter, Histogram

from connectivity.telemetry import REGISTRY

UNMATCHED = "unmatched"
# Any token is a valid HTTP method: a client inventing methods must not invent series.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
BOOKING_ENDPOINT = "bookings.create_booking"
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0,
                   30.0)

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


def booking_outcome(status: int) -> str:
    if status == 201:
        return "created"
    if status == 200:
        return "replay"
    # Set by envelope.error_response for every failure answered in the envelope.
    return getattr(g, "error_code", None) or f"http_{status}"


class _RequestSeries:
    """The request counter's and the latency histogram's children for one (endpoint, method,
    status). `Metric.labels()` validates and joins the label values and takes the metric's lock
    on every call; the child it returns is the same object every time (the metric keeps it for
    good), so looking it up once per label set and keeping it counts exactly the same."""

    __slots__ = ("requests", "latency")

    def __init__(self, endpoint: str, method: str, status: int):
        self.requests = REQUESTS.labels(endpoint, method, str(status))
        self.latency = LATENCY.labels(endpoint, method)


# Bounded like the series themselves: route rules x METHODS x the statuses the service answers.
# Filled without a lock: two threads meeting a new label set both get the metric's one child.
_SERIES: dict[tuple[str, str, int], _RequestSeries] = {}


def request_series(endpoint: str, method: str, status: int) -> _RequestSeries:
    labels = (endpoint, method, status)
    series = _SERIES.get(labels)
    if series is None:
        series = _SERIES[labels] = _RequestSeries(endpoint, method, status)
    return series


def record_request(response: Response) -> Response:
    # One look-up of each request attribute: `request` and `g` are context-local proxies.
    req, state = request._get_current_object(), g._get_current_object()
    rule = req.url_rule
    endpoint = rule.rule if rule is not None else UNMATCHED
    method = req.method if req.method in METHODS else "other"
    status = response.status_code
    series = request_series(endpoint, method, status)
    series.requests.inc()
    started = getattr(state, "started", None)  # set by wire.assign_request_id, the first hook
    if started is not None:
        series.latency.observe(time.perf_counter() - started)
    if status == 429:
        RATE_LIMITED.labels(endpoint).inc()
    if req.endpoint == BOOKING_ENDPOINT and req.method == "POST":
        BOOKINGS.labels(booking_outcome(status)).inc()
    return response
