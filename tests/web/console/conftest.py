"""The console in a real browser: a page of headless Chromium (tests/support/browser.py) on the
test app served on a socket, with the worker applying ARI batches, and a partner's calls to set
the scene (devtools/live.py's LiveService)."""

from __future__ import annotations

import pytest

from devtools.browser import ConsolePage
from devtools.live import LiveService
from tests.support.browser import browser, browser_page  # noqa: F401 - fixtures
from tests.support.live_service import live_origin, webhook_worker, worker  # noqa: F401


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
