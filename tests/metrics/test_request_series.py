"""The request metrics keep one (counter, histogram) pair of children per label set instead of
calling `.labels()` on every request: each label set must still count exactly its own requests,
in one process and in prometheus-client's multiprocess mode (files per process, as under
gunicorn)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from bench.server import ROOT
from connectivity.metrics import http as request_metrics
from tests.conftest import SECRET_KEY
from tests.metrics.scrape import samples, value

API = "/api/connectivity/v1"
REQUESTS = "pcs_http_requests_total"
LATENCY_COUNT = "pcs_http_request_duration_seconds_count"

# Requests over five label sets, interleaved so that no label set's requests come in one run;
# two of them differ only by status (unmatched GET: 404 for no path, 405 for a PUT-only path).
SEQUENCE = [("GET", "/healthz"), ("GET", "/no/such/path"), ("HEAD", "/healthz"),
            ("BREWCOFFEE", "/healthz"), ("GET", f"{API}/ari/restrictions"), ("GET", "/healthz"),
            ("GET", "/no/such/path"), ("GET", "/healthz"), ("BREWCOFFEE", "/healthz"),
            ("HEAD", "/healthz"), ("GET", f"{API}/ari/restrictions"), ("GET", "/no/such/path")]
EXPECTED = {("/healthz", "GET", "200"): 3, ("unmatched", "GET", "404"): 3,
            ("unmatched", "GET", "405"): 2, ("/healthz", "HEAD", "200"): 2,
            ("unmatched", "other", "405"): 2}


def test_the_kept_children_are_the_metrics_own():
    series = request_metrics.request_series("/x-series-test", "GET", 200)
    assert request_metrics.request_series("/x-series-test", "GET", 200) is series
    assert series.requests is request_metrics.REQUESTS.labels("/x-series-test", "GET", "200")
    assert series.latency is request_metrics.LATENCY.labels("/x-series-test", "GET")
    other = request_metrics.request_series("/x-series-test", "GET", 404)
    assert other.requests is not series.requests
    assert other.latency is series.latency  # the histogram has no status label


def test_each_label_set_counts_exactly_its_requests(client, issue, catalog):
    bearer = {"Authorization": f"Bearer {issue('pull', rate_limit=100000).token}"}
    wrong = {"Authorization": "Bearer sbx_nosuchkeyatall0000.wrong"}
    before = samples(client.get("/metrics").get_data(as_text=True))
    for round_ in range(3):
        for method, path in SEQUENCE:
            client.open(path, method=method)
        assert client.get(f"{API}/ping", headers=bearer).status_code == 200
        assert client.get(f"{API}/ping", headers=wrong).status_code == 401
    after = samples(client.get("/metrics").get_data(as_text=True))

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    expected = {labels: 3 * count for labels, count in EXPECTED.items()}
    expected[(f"{API}/ping", "GET", "200")] = 3
    expected[(f"{API}/ping", "GET", "401")] = 3
    for (endpoint, method, status), count in expected.items():
        assert delta(REQUESTS, endpoint=endpoint, method=method, status=status) == count, (
            endpoint, method, status)
    # The histogram counts per (endpoint, method), whatever the status.
    assert delta(LATENCY_COUNT, endpoint=f"{API}/ping", method="GET") == 6
    assert delta(LATENCY_COUNT, endpoint="/healthz", method="GET") == 9
    assert delta(LATENCY_COUNT, endpoint="unmatched", method="other") == 6
    assert delta(LATENCY_COUNT, endpoint="unmatched", method="GET") == 15


# Runs in a process of its own: prometheus-client chooses its value storage when first imported.
_MULTIPROCESS_RUN = textwrap.dedent("""
    import json, sys
    from app import create_app
    from connectivity import telemetry
    assert telemetry.MULTIPROCESS
    client = create_app().test_client()
    for method, path in json.loads(sys.argv[1]):
        client.open(path, method=method)
""")


def test_each_label_set_counts_exactly_in_multiprocess_mode(services, tmp_path):
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
           "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
           "SECRET_KEY": SECRET_KEY, "LOG_LEVEL": "WARNING"}
    for _ in range(2):  # two processes, as two gunicorn workers: their files are summed
        subprocess.run([sys.executable, "-c", _MULTIPROCESS_RUN, json.dumps(SEQUENCE)],
                       cwd=ROOT, env=env, check=True, capture_output=True, timeout=120)
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(tmp_path))
    page = samples(generate_latest(registry).decode())
    for (endpoint, method, status), count in EXPECTED.items():
        assert value(page, REQUESTS, endpoint=endpoint, method=method,
                     status=status) == 2 * count, (endpoint, method, status)
    assert value(page, LATENCY_COUNT, endpoint="/healthz", method="GET") == 2 * 3
    assert value(page, LATENCY_COUNT, endpoint="/healthz", method="HEAD") == 2 * 2
    assert value(page, LATENCY_COUNT, endpoint="unmatched", method="GET") == 2 * 5
