"""Headless Chromium driven by Playwright, for the pages' browser tests (tests/web/) and the
console's screenshots and bench. Playwright's own browser download cannot reach its host here,
so it drives an installed Chromium: Debian's `chromium` (apt-get install -y chromium), or the
one CHROMIUM_PATH names."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager

NO_CHROMIUM = "no Chromium found (install Debian's `chromium`, or set CHROMIUM_PATH)"
NO_PLAYWRIGHT = "the playwright package is not installed (requirements-dev.txt)"


def chromium_path() -> str | None:
    for candidate in (os.environ.get("CHROMIUM_PATH"), shutil.which("chromium"),
                      shutil.which("chromium-browser"), shutil.which("google-chrome")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


@contextmanager
def chromium(executable: str) -> Iterator:
    """A Playwright Browser on `executable`, closed on exit."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
        browser = playwright.chromium.launch(executable_path=executable, headless=True,
                                             args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()
