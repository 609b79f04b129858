"""GET /metrics: Prometheus text format, outside the partner API prefix like /healthz.

What it shows: requests by route, method and status with latency histograms, rate-limit
rejections, POST /bookings outcomes (connectivity/metrics/http.py), and the state of ARI
batches, the queue and reconciliation read at scrape time (stored.py). No label value names a
partner, a key, a hotel or a reference, so the page is the same for whoever reads it.

Who may read it: with METRICS_TOKEN set, only a caller sending `Authorization: Bearer
<METRICS_TOKEN>` (401 otherwise); unset, anyone who can reach the path (docs/operations.md: keep
it off the public router then). Partner keys never open it.

Under gunicorn (PROMETHEUS_MULTIPROC_DIR set, by gunicorn.conf.py if not by the operator) the
request figures are summed over every worker process, so any worker answers for the server;
without it (tests, `flask run`) they are this process's own."""

from __future__ import annotations

import hmac

from flask import Blueprint, Flask, Response, current_app, request
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, CollectorRegistry, generate_latest

from connectivity.metrics.http import record_request
from connectivity.metrics.stored import StoredStateCollector
from connectivity.telemetry import MULTIPROCESS, REGISTRY
from connectivity.web.errors import Unauthorized
from connectivity.web.services import services, services_of

blp = Blueprint("metrics", __name__)


def init_metrics(app: Flask) -> None:
    app.after_request(record_request)
    app.register_blueprint(blp)
    app.extensions["connectivity.metrics"] = StoredStateCollector(
        services_of(app).db, services_of(app).ari_queue,
        services_of(app).settings.ari_worker_batches_per_second)


@blp.get("/metrics")
def metrics():
    """Prometheus text exposition (format 0.0.4)."""
    _check_token()
    registry = CollectorRegistry()
    if MULTIPROCESS:
        from prometheus_client import multiprocess
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(_Local())
    registry.register(current_app.extensions["connectivity.metrics"])
    return Response(generate_latest(registry), content_type=CONTENT_TYPE_PLAIN_0_0_4)


class _Local:
    """This process's request figures (single-process mode)."""

    def collect(self):
        return REGISTRY.collect()


def _check_token() -> None:
    expected = services().settings.metrics_token
    if not expected:
        return
    scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
    if not sent:
        raise Unauthorized("missing_credentials", "send Authorization: Bearer <METRICS_TOKEN>")
    if scheme.lower() != "bearer" or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise Unauthorized("invalid_credentials", "not the metrics token")
