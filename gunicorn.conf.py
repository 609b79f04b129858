"""gunicorn settings for the Procfile's web process; each can be overridden from the
environment the way PaaS platforms expect (PORT, WEB_CONCURRENCY, WEB_THREADS)."""

import multiprocessing
import os
from functools import partial

from gunicorn.glogging import Logger

from connectivity.adapters.gunicorn_errors import answer_in_json
from connectivity.logs import json_handler
from connectivity.settings import public_base_url, web_threads
from connectivity.web import request_limits
from connectivity.web.envelope import refusal_before_the_app

bind = f"0.0.0.0:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2))
# Requests mostly wait on PostgreSQL and Redis; threads let one process overlap those waits.
worker_class = "gthread"
threads = web_threads(os.environ)
# No preload: each worker builds its own app, so the database pool is only ever opened after the
# fork (a pool inherited from the master shares sockets between processes).
preload_app = False
# On SIGTERM a worker stops accepting and finishes the requests in flight within this time.
graceful_timeout = 30
timeout = 30
# An idle connection outlives every Retry-After the service sends (at most 61 s: a 429's wait
# for the rate limit's 60 s window; 5 s for a 503), so a client that waits as told and reuses its
# connection never meets one the server has just closed (tests/web/test_keepalive.py). Behind a
# load balancer this must also exceed the balancer's idle timeout (docs/operations.md).
keepalive = 75
accesslog = None  # the app logs one JSON line per request, with its request_id
# A request's head: refused by gunicorn before the app, as 414 `uri_too_long` and 431
# `headers_too_large` in the envelope (post_fork below).
limit_request_line = request_limits.REQUEST_LINE_BYTES
limit_request_field_size = request_limits.HEADER_FIELD_BYTES
limit_request_fields = request_limits.HEADER_FIELDS


class JsonLogger(Logger):
    """gunicorn's own log (start, workers booted and lost, requests refused before the app) as
    the app's JSON lines on stdout, instead of its text on stderr: one JSON object per line,
    whichever part of the process wrote it. Set up again on each reload (SIGHUP)."""

    def setup(self, cfg):
        super().setup(cfg)
        for handler in list(self.error_log.handlers):
            self.error_log.removeHandler(handler)
        self.error_log.addHandler(json_handler())


logger_class = JsonLogger


# Metrics summed over every worker (connectivity/metrics/process_dir.py): the directory is made
# before the first fork, a dead worker's live gauges are dropped, and the master's own directory
# is removed when it exits. The imports wait for the hooks: they run in the repository root.
def on_starting(server):
    from connectivity.metrics import process_dir
    from connectivity.settings import shared_search_model
    server.log.info("metrics directory: %s", process_dir.prepare())
    # One read model for the machine, held by a process of its own (read_model/host.py), not
    # one per worker: started before the first fork, so every worker finds it.
    if shared_search_model(os.environ):
        from connectivity.availability.read_model.supervisor import HostSupervisor
        server.model_host = HostSupervisor(server.log, exited=process_dir.worker_exited)
        server.model_host.start()


def post_fork(server, worker):
    # gunicorn's answers to a request line or headers over the limits, in the envelope rather
    # than its HTML page; `doc_url` absolute when PUBLIC_BASE_URL says where partners reach us.
    answer_in_json(partial(refusal_before_the_app, origin=public_base_url(os.environ) or ""))


def child_exit(server, worker):
    from connectivity.metrics import process_dir
    process_dir.worker_exited(worker.pid)


def on_exit(server):
    from connectivity.metrics import process_dir
    host = getattr(server, "model_host", None)
    if host is not None:
        host.stop()
    process_dir.cleanup()
