"""The Prometheus registry every layer records into: the request figures (metrics/http.py) and
the read replica's (store/replica.py). At the foundation, so that the store records its figures
without importing the metrics area above it; GET /metrics (metrics/endpoint.py) exposes them.

prometheus-client picks its value storage when first imported (just below), by the same test as
MULTIPROCESS: /metrics must read the values the way they are stored, whatever the environment
says later on. Under gunicorn only the workers import it, after the master has set the
directory (metrics/process_dir.py)."""

from __future__ import annotations

import os

from prometheus_client import CollectorRegistry, disable_created_metrics

MULTIPROCESS = "PROMETHEUS_MULTIPROC_DIR" in os.environ

# No `_created` series: multiprocess mode has none, and both modes should read alike.
disable_created_metrics()

# The service's own registry (not prometheus-client's global one): in single-process mode
# (tests, `flask run`) it is what /metrics exposes; under gunicorn the values also go to the
# multiprocess files, which /metrics reads instead.
REGISTRY = CollectorRegistry()
