"""Headless Chromium driven by Playwright, for the pages' browser tests (tests/web/) and the
console's screenshots and bench; the console's page as a partner drives it (ConsolePage). Playwright's own browser download cannot reach its host here,
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


class ConsolePage:
    """The page at /console, driven as a partner does: paste a key, open a section."""

    def __init__(self, page, origin: str):
        self.page, self.origin = page, origin
        self.requests = []
        page.on("request", lambda request: self.requests.append(request))
        # What the browser said about the page: a refused script or style (CSP), an invalid
        # `pattern`, an uncaught error.
        self.complaints = []
        page.on("console", lambda message: self.complaints.append(message.text)
                if message.type in ("error", "warning")
                and "Failed to load resource" not in message.text else None)
        page.on("pageerror", lambda error: self.complaints.append(str(error)))

    def open(self) -> None:
        self.page.goto(f"{self.origin}/console")
        # The modules have run: the calendar's first day is filled in. (Waited for by a
        # locator: page.wait_for_function evaluates text, which the page's CSP refuses.)
        from playwright.sync_api import expect
        expect(self.page.locator("#calendar-form [name=from_date]")).not_to_have_value("")

    def use_key(self, token: str) -> str:
        """Pastes `token`; the key line once the page has asked who it is."""
        self.page.fill("#key-token", token)
        self.page.click("#key-form button[type=submit]")
        status = self.page.locator("#key-status")
        status.locator("strong").wait_for()
        return status.inner_text()

    def go(self, section: str):
        self.page.click(f"nav.sections a[href='#{section}']")
        located = self.page.locator(f"section#{section}")
        located.wait_for(state="visible")
        return located

    def show_calendar(self, hotel_code: str, from_date: str, days: int) -> None:
        """Fills the calendar's form and shows it: returns once it is drawn or told failed."""
        page = self.page
        page.fill("#calendar-form [name=hotel_code]", hotel_code)
        page.fill("#calendar-form [name=from_date]", from_date)
        page.fill("#calendar-form [name=days]", str(days))
        page.click("#calendar-form button[type=submit]")
        # read (its time is told) or told why not
        page.locator("#calendar-status:has(time), #calendar-status.failed").wait_for()
