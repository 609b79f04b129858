"""Shared by the contract tests: the description as the service publishes it, a pull key and a
signed push key of acme over the demo catalogue, and signing applied to whatever is sent."""

from __future__ import annotations

import sys
from io import BytesIO
from urllib.parse import quote

import pytest

from tests.support.signing import bearer, signed_headers

API = "/api/connectivity/v1"
DESCRIPTION_PATH = f"{API}/openapi.json"
# High enough that neither the fuzzer nor the client run meets a 429.
RATE_LIMIT = 100000


@pytest.fixture
def keys(catalog, issue):
    """acme's pull key (bearer) and push key (signed), both on the sandbox demo catalogue."""
    return {"pull": issue("pull", rate_limit=RATE_LIMIT),
            "push": issue("push", signed=True, rate_limit=RATE_LIMIT)}


class SigningMiddleware:
    """Signs each request that names the key (`X-Api-Key-Id`, the description's `signed`
    scheme) as it reaches the application, over exactly the target and body sent, with a fresh
    nonce and timestamp: whatever a test client or fuzzer built, the signature matches what the
    service receives. A request without that header, or naming another key (a fuzzer's probe
    of what happens without credentials), goes on unsigned."""

    def __init__(self, app, token: str):
        self.app = app
        self.token = token
        self.key_id = token.partition(".")[0]

    def __call__(self, environ, start_response):
        if environ.get("HTTP_X_API_KEY_ID") != self.key_id:
            return self.app(environ, start_response)
        length = int(environ.get("CONTENT_LENGTH") or 0)
        body = environ["wsgi.input"].read(length) if length else b""
        environ["wsgi.input"] = BytesIO(body)
        # The raw request target, as a server puts the request line's into REQUEST_URI.
        target = quote(environ.get("PATH_INFO", "").encode("latin-1"), safe="/")
        if environ.get("QUERY_STRING"):
            target += "?" + environ["QUERY_STRING"]
        environ["REQUEST_URI"] = target
        environ.pop("HTTP_AUTHORIZATION", None)
        for name, value in signed_headers(self.token, environ["REQUEST_METHOD"], target,
                                          body).items():
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        return self.app(environ, start_response)


__all__ = ["API", "DESCRIPTION_PATH", "SigningMiddleware", "bearer"]


@pytest.fixture
def work(db, services):
    """work() -> number of jobs run: a real RQ worker works the ARI queue off, then returns."""
    import redis
    from rq import SimpleWorker

    from connectivity.ari import jobs
    from connectivity.ari.queue import queue_name

    client = redis.Redis.from_url(services.redis_url)
    jobs.use_database(db)

    def _work() -> int:
        worker = SimpleWorker([queue_name(services.redis_prefix)], connection=client)
        worker.work(burst=True)
        worker.refresh()
        return worker.successful_job_count

    yield _work
    jobs.use_database(None)
    client.close()


def pytest_terminal_summary(terminalreporter):
    """What the fuzzer ran: operations x examples per key, and the statuses it got."""
    fuzz = sys.modules.get("tests.system.contract.test_fuzz")
    if fuzz is None or not fuzz.TALLY:
        return
    write = terminalreporter.write_line
    total = sum(n for counts in fuzz.TALLY.values() for s, n in counts.items() if s != "steered")
    # (TALLY keys are "<key> <METHOD> <path>".)
    write(f"schemathesis: {len({k.split(' ', 1)[1] for k in fuzz.TALLY})} operations x 2 keys, "
          f"{total} requests (max_examples={fuzz.MAX_EXAMPLES} plus coverage cases with the "
          f"operation's own key, {fuzz.OTHER_KEY_EXAMPLES} with the other), Hypothesis "
          f"seed {fuzz.SEED}")
    for label in sorted(fuzz.TALLY, key=lambda k: (k.split(" ", 2)[2], k)):
        counts = fuzz.TALLY[label]
        statuses = " ".join(f"{s}x{n}" for s, n in sorted(
            ((str(s), n) for s, n in counts.items() if s != "steered")))
        write(f"  {label}: {sum(n for s, n in counts.items() if s != 'steered')} requests "
              f"({counts['steered']} steered onto the catalogue): {statuses}")
