"""The console in a real browser: a page of headless Chromium (tests/support/browser.py) on the
test app served on a socket, with the worker applying ARI batches, and a partner's calls to set
the scene (devtools/live.py's LiveService)."""

from __future__ import annotations

import dataclasses

import pytest

from connectivity.settings import Settings
from devtools.console_stack import LOOPBACK_SETTING
from devtools.browser import ConsolePage
from devtools.live import LiveService, procfile_process, serving
from tests.support.browser import browser, browser_page  # noqa: F401 - fixtures
from tests.support.live_service import live_origin, process_settings, worker  # noqa: F401


@pytest.fixture
def console(browser_page, live_origin):
    page = ConsolePage(browser_page, live_origin)
    page.open()
    yield page
    # The API's refusals (a 403 the page explains) are not complaints; anything else is.
    assert page.complaints == []


@pytest.fixture
def partner(app, live_origin, settings, catalog):
    return LiveService(live_origin, app, settings.secret_key)


@pytest.fixture
def loopback_app(app, make_app):
    """The app, allowing webhooks to loopback where the service has that setting (contract
    12.3's WEBHOOK_ALLOW_LOOPBACK, default off): the test's receiver listens there."""
    if LOOPBACK_SETTING in {field.name for field in dataclasses.fields(Settings)}:
        return make_app(**{LOOPBACK_SETTING: True})
    return app


@pytest.fixture
def loopback_console(browser_page, loopback_app, settings, catalog):
    with serving(loopback_app) as origin:
        page = ConsolePage(browser_page, origin)
        page.open()
        yield page, LiveService(origin, loopback_app, settings.secret_key)
        assert page.complaints == []


@pytest.fixture
def loopback_webhook_worker(services, settings):
    """The Procfile's `webhooks` process, allowed to deliver to loopback."""
    with procfile_process("connectivity.webhook_worker", process_settings(
            services, settings, WEBHOOK_RETRY_SCHEDULE="1,1", WEBHOOK_ALLOW_LOOPBACK="1")) as proc:
        yield proc
