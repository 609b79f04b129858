"""The service as a partner reaches it: the test app on a real socket (werkzeug, threaded) and
the Procfile's worker as a process of its own, for the tests that go through HTTP end to end
(the printed walk-through, the Python client). Import the fixtures into a test module."""

from __future__ import annotations

import pytest

from devtools.live import procfile_process, serving


@pytest.fixture
def live_origin(app):
    with serving(app) as origin:
        yield origin


@pytest.fixture
def worker(services, settings):
    with procfile_process("connectivity.worker", process_settings(services, settings)) as proc:
        yield proc


@pytest.fixture
def webhook_worker(services, settings):
    """The Procfile's `webhooks` process, retrying after 1 s and then 1 s, sending to the tests'
    receivers on loopback."""
    with procfile_process("connectivity.webhook_worker", process_settings(
            services, settings, WEBHOOK_RETRY_SCHEDULE="1,1", WEBHOOK_ALLOW_LOOPBACK="on")) as proc:
        yield proc


def process_settings(services, settings, **extra) -> dict[str, str]:
    """What a Procfile process of the test app needs: its servers, prefix and secret."""
    return {"DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
            "REDIS_PREFIX": services.redis_prefix, "SECRET_KEY": settings.secret_key, **extra}
