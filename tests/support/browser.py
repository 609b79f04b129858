"""A page of a headless Chromium (devtools/browser.py) for the browser tests; the test is
skipped, saying why, where no Chromium or no playwright package is found."""

from __future__ import annotations

import pytest

from devtools.browser import NO_CHROMIUM, NO_PLAYWRIGHT, chromium, chromium_path


@pytest.fixture
def browser():
    executable = chromium_path()
    if executable is None:
        pytest.skip(f"skipped: {NO_CHROMIUM}")
    pytest.importorskip("playwright.sync_api", reason=f"skipped: {NO_PLAYWRIGHT}")
    with chromium(executable) as launched:
        yield launched


@pytest.fixture
def browser_page(browser):
    page = browser.new_page()
    page.set_default_timeout(60_000)
    return page
