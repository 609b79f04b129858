"""The docs page in a real browser (headless Chromium driven by Playwright), doing what a
newcomer does: authorize with a signed push key's whole token (as the dialog asks), try PUT /ari
and GET /ari/batches/{batchId}, and read back a 202 and then `applied`; read ARI back with the
optional filters left as the page leaves them (empty); authorize both keys, call search and get
the documented 401 `multiple_credentials`; follow an error's `doc_url` to its section. Runs
wherever a Chromium is found (`chromium` on PATH, or CHROMIUM_PATH: devtools/browser.py); says
plainly that it was skipped otherwise. CI installs Debian's `chromium`."""

from __future__ import annotations

import datetime as dt
import json
import re
import time

import pytest

from tests.support.browser import browser, browser_page  # noqa: F401 - fixtures
from tests.support.live_service import live_origin, worker  # noqa: F401 - fixtures

API = "/api/connectivity/v1"


def response_of(block):
    """(status, body) of the last "Execute" in an operation block."""
    row = block.locator(".live-responses-table .response").first
    row.wait_for()
    status = row.locator(".response-col_status").inner_text().strip()
    body = row.locator(".response-col_description pre").first.inner_text()
    return status, body


def execute(page, block):
    block.locator("button.execute").click()
    block.locator(".live-responses-table .response-col_status").first.wait_for()
    return response_of(block)


def authorize(page, *, signed: str | None = None, bearer: str | None = None) -> None:
    """The "Authorize" dialog, as a newcomer fills it: the whole token in each scheme."""
    page.locator("button.authorize").first.click()
    containers = page.locator(".auth-container")
    if signed:
        dialog = containers.filter(has_text="X-Api-Key-Id")
        # what the dialog asks for, above the misleading-looking "Name: X-Api-Key-Id"
        assert "Paste the whole token <key_id>.<secret>" in dialog.inner_text()
        dialog.locator("input").fill(signed)
        dialog.locator("button.authorize").click()
    if bearer:
        dialog = containers.filter(has_text="http, Bearer")
        dialog.locator("input").fill(bearer)
        dialog.locator("button.authorize").click()
    page.locator("button.btn-done").first.click()


def test_the_docs_page_signs_in_the_browser(browser_page, live_origin, worker, catalog, issue):
    page = browser_page
    key = issue("push")
    assert key.requires_signature
    seen = []
    page.on("request", lambda request: seen.append(request.headers))
    page.goto(f"{live_origin}{API}/docs")
    page.locator(".swagger-ui .information-container").wait_for()

    authorize(page, signed=key.token)

    push = page.locator("#operations-ari-put_ari")
    push.locator(".opblock-summary").click()
    push.locator("button.try-out__btn").click()
    date = (dt.date.today() + dt.timedelta(days=5)).isoformat()
    push.locator("textarea.body-param__text").fill(json.dumps({
        "hotel_code": "ACME-LIS", "items": [
            {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": date,
             "availability": 3, "rate": 120}]}))
    status, body = execute(page, push)
    assert status == "202", body
    batch_id = json.loads(body)["data"]["batch_id"]
    # The curl shown repeats the nonce the page used: the page says so beside it.
    assert "401 replayed_request" in push.locator(".pcs-curl-note").inner_text()

    read = page.locator("#operations-ari-get_batch")
    read.locator(".opblock-summary").click()
    read.locator("button.try-out__btn").click()
    read.locator("input[placeholder='batchId']").fill(batch_id)
    deadline = time.monotonic() + 90
    while True:
        status, body = execute(page, read)
        assert status == "200", body
        if json.loads(body)["data"]["status"] not in ("queued", "processing"):
            break
        assert time.monotonic() < deadline, body
        time.sleep(0.5)
    assert json.loads(body)["data"]["status"] == "applied"

    # Reading it back, the optional filters start empty: every room type is answered.
    back = page.locator("#operations-ari-read_ari")
    back.locator(".opblock-summary").click()
    back.locator("button.try-out__btn").click()
    for optional in ("room_type_codes", "rate_plan_codes"):
        assert back.locator(f"input[placeholder='{optional}']").input_value() == ""
    back.locator("input[placeholder='hotel_code']").fill("ACME-LIS")
    back.locator("input[placeholder='from_date']").fill(date)
    back.locator("input[placeholder='to_date']").fill(date)
    status, body = execute(page, back)
    assert status == "200", body
    assert len(json.loads(body)["data"]["room_types"]) > 1
    # What left the page: the key id and a signature, never the secret.
    secret = key.token.partition(".")[2]
    api_requests = [h for h in seen if "x-signature" in h]
    assert len(api_requests) >= 2
    assert all(h["x-api-key-id"] == key.key_id and re.fullmatch(r"[0-9a-f]{64}",
                                                                h["x-signature"])
               for h in api_requests)
    assert not any(secret in value for h in seen for value in h.values())


def test_both_keys_authorized_get_the_documented_answer(browser_page, live_origin, catalog,
                                                        issue):
    page = browser_page
    pull, push = issue("pull"), issue("push")
    page.goto(f"{live_origin}{API}/docs")
    page.locator(".swagger-ui .information-container").wait_for()
    authorize(page, signed=push.token, bearer=pull.token)

    search = page.locator("#operations-availability-search")
    search.locator(".opblock-summary").click()
    search.locator("button.try-out__btn").click()
    day = dt.date.today() + dt.timedelta(days=5)
    search.locator("textarea.body-param__text").fill(json.dumps({
        "hotel_codes": ["ACME-LIS"], "check_in": day.isoformat(),
        "check_out": (day + dt.timedelta(days=1)).isoformat(), "rooms": 1,
        "occupancy": [{"adults": 2}]}))
    status, body = execute(page, search)
    # Not served with either key's scopes: refused, saying why, and where to read more.
    assert status == "401", body
    error = json.loads(body)["error"]
    assert error["code"] == "multiple_credentials"
    assert error["doc_url"] == f"{live_origin}{API}/docs#error-multiple_credentials"

    # The link, absolute, leads to the code's section, in view once the page has rendered.
    page.goto(error["doc_url"])
    page.locator(".swagger-ui .information-container").wait_for()
    section = page.locator("#error-multiple_credentials")
    section.wait_for()
    text = section.inner_text()
    assert "multiple_credentials (401)" in text and "Cause." in text and "Fix." in text
    assert page.evaluate("document.querySelector(':target').id") == "error-multiple_credentials"
    page.wait_for_function(
        "() => { const r = document.getElementById('error-multiple_credentials')"
        ".getBoundingClientRect(); return r.top >= 0 && r.top < window.innerHeight; }")
