"""The console (/console) in a real browser (headless Chromium driven by Playwright), as a
partner uses it: the calendar shows exactly what GET /ari answers, a closed and a sold-out day
among them, and a change pushed through the API once read again; a delivery's retry button
sends it to the receiver again; a hotel booking acknowledged from the page reaches the reseller's
booking; a key without a section's scope is told which scope it lacks; the key is kept nowhere
but in the page. Runs wherever a Chromium is found (devtools/browser.py); says plainly that it
was skipped otherwise."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from playwright.sync_api import expect

from connectivity.operator.demo_ari import seed_demo_ari
from devtools.webhook_receiver import receiver

API = "/api/connectivity/v1"
# A cell's letters, in the order the legend gives them.
FLAGS = (("closed", "C"), ("min_stay", "m"), ("max_stay", "M"), ("closed_to_arrival", "A"),
         ("closed_to_departure", "D"))


def day(offset: int) -> str:
    return (dt.date.today() + dt.timedelta(days=offset)).isoformat()


def as_js(value) -> str:
    """A JSON number as JavaScript's String() writes it (150.0 is 150)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def expected_cell(found: dict | None, field: str) -> tuple[str, str]:
    """(text, state) the legend promises for a day of GET /ari's answer."""
    value = found[field]
    letters = "".join(letter for name, letter in FLAGS if found[name] not in (None, False))
    text = ("–" if value is None else as_js(value)) + (f" {letters}" if letters else "")
    if found["closed"] is True:
        state = "closed"
    elif field == "availability" and value == 0:
        state = "sold-out"
    elif value is None:
        state = "unset"
    else:
        state = "restricted" if letters else "open"
    return text, state


def expected_tip(found: dict) -> dict[str, str]:
    """Every field of the day but date and set_by, as the tooltip lists it, with its set_by."""
    def shown(value):
        return "not set" if value is None else ("yes" if value else "no") if isinstance(
            value, bool) else as_js(value)
    set_by = found["set_by"]
    return {name: shown(value) + (f" set by {set_by[name]}" if name in set_by else "")
            for name, value in found.items() if name not in ("date", "set_by")}


def grid_rows(ari: dict) -> list[tuple[str, dict]]:
    """(field, days by date) per row, in the order the grid draws them."""
    rows = []
    for room_type in ari["room_types"]:
        rows.append(("availability", {d["date"]: d for d in room_type["days"]}))
        rows += [("rate", {d["date"]: d for d in plan["days"]}) for plan in room_type["rate_plans"]]
    return rows


def tip_of(console, row: int, column: int, *, hover: bool = False) -> dict[str, str]:
    """The tooltip of a cell shown by hovering over it or by focusing it: {field: text}."""
    cell = console.page.locator(f"#calendar-grid td.cell[data-r='{row}'][data-c='{column}']")
    if hover:
        cell.hover()
    else:
        console.page.mouse.move(0, 0)  # no cell under the pointer: the focus decides
        cell.focus()
    tip = console.page.locator("#calendar-tip")
    tip.wait_for(state="visible")
    return dict(tip.evaluate("t => Array.from(t.querySelectorAll('dt'), "
                             "dt => [dt.textContent, dt.nextElementSibling.textContent])"))


def test_the_calendar_shows_what_get_ari_answers(console, partner, db, worker):
    db.run(seed_demo_ari, dt.datetime.now(dt.timezone.utc))
    push = partner.issue("push")
    seeded = partner.push(push, "/ari", {"hotel_code": "ACME-LIS", "items": [
        {"room_type_code": "ACME-DBL", "date": day(2), "availability": 0},   # sold out
        {"room_type_code": "ACME-SGL", "date": day(3), "closed": True},      # closed
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(4),
         "rate": 99.5, "min_stay": 2, "closed_to_arrival": True}]})
    assert seeded["status"] == "applied", seeded
    console.use_key(push)
    console.show_calendar("ACME-LIS", day(1), 10)

    ari = partner.call(push, "GET", "/ari", hotel_code="ACME-LIS", from_date=day(1),
                       to_date=day(10))
    rows, dates = grid_rows(ari), [day(n) for n in range(1, 11)]
    cells = console.page.eval_on_selector_all(
        "#calendar-grid td.cell", "cells => cells.map(td => [Number(td.dataset.r), "
        "Number(td.dataset.c), td.textContent, td.className])")
    assert len(cells) == len(rows) * 10 and len(rows) == 7  # ACME-LIS: 2 room types, 5 plans
    for r, c, text, classes in cells:
        field, days = rows[r]
        want_text, want_state = expected_cell(days[dates[c]], field)
        assert (text, classes) == (want_text, f"cell {want_state}"), (r, dates[c])

    # The seeded cells, and each value's batch: the sold-out day (hovered), the closed day and
    # the restricted rate (focused).
    dbl, bar, sgl = 0, 1, 5
    assert [rows[i][0] for i in (dbl, bar, sgl)] == ["availability", "rate", "availability"]
    for (row, offset, state, field), hover in zip(
            ((dbl, 2, "sold-out", "availability"), (sgl, 3, "closed", "closed"),
             (bar, 4, "restricted", "min_stay")), (True, False, False)):
        found = rows[row][1][day(offset)]
        assert expected_cell(found, rows[row][0])[1] == state
        assert found["set_by"][field] == seeded["batch_id"]
        assert tip_of(console, row, offset - 1, hover=hover) == expected_tip(found)

    # A change pushed through the API shows once the calendar is read again.
    changed = partner.push(push, "/ari", {"hotel_code": "ACME-LIS", "items": [
        {"room_type_code": "ACME-DBL", "date": day(2), "availability": 4}]})
    console.show_calendar("ACME-LIS", day(1), 10)
    cell = console.page.locator(f"#calendar-grid td.cell[data-r='{dbl}'][data-c='1']")
    assert (cell.text_content(), cell.get_attribute("class")) == ("4", "cell open")
    assert tip_of(console, dbl, 1)["availability"] == f"4 set by {changed['batch_id']}"


def test_the_calendar_is_one_tab_stop_moved_by_arrow_keys(console, partner, db):
    db.run(seed_demo_ari, dt.datetime.now(dt.timezone.utc))
    console.use_key(partner.issue("push"))
    console.show_calendar("ACME-LIS", day(1), 5)
    page = console.page
    page.focus("#calendar-form button[type=submit]")
    page.keyboard.press("Tab")
    active = "() => [document.activeElement.dataset.r, document.activeElement.dataset.c]"
    assert page.evaluate(active) == ["0", "0"]
    for key in ("ArrowRight", "ArrowRight", "ArrowDown", "End"):
        page.keyboard.press(key)
    assert page.evaluate(active) == ["1", "4"]
    tip = page.locator("#calendar-tip")
    assert "ACME-DBL · ACME-BAR" in tip.inner_text() and day(5) in tip.inner_text()
    page.keyboard.press("Escape")
    assert tip.is_hidden()
    page.keyboard.press("Tab")  # out of the grid in one step
    assert page.evaluate("document.activeElement.closest('table') === null")


def test_the_events_tail_shows_new_events_of_the_types_ticked(console, partner, db):
    db.run(seed_demo_ari, dt.datetime.now(dt.timezone.utc))
    pull = partner.issue("pull")
    console.use_key(pull)
    section = console.go("events")
    section.get_by_label("booking.cancelled", exact=True).check()
    section.locator("#events-form [name=start]").select_option("latest")
    section.locator("#events-form button[type=submit]").click()
    # placed: events from now on are shown
    section.locator("#events-status", has_text="Tailing: no event yet").wait_for()

    booking = partner.book(pull, "console-tail-1", "ACME-LIS", "ACME-DBL", "ACME-BAR", day(7),
                           day(9))
    partner.call(pull, "POST", f"/bookings/{booking['partner_reference']}/cancel", {})
    rows = section.locator("#events-list tbody tr")
    expect(rows.first).to_contain_text("booking.cancelled", timeout=20_000)
    assert "console-tail-1" in rows.first.inner_text()
    assert rows.count() == 1  # its booking.confirmed is of a type not ticked
    section.locator("#events-stop").click()
    expect(section.locator("#events-status")).to_have_text("Tail stopped.")


def test_a_retry_button_delivers_again_and_ping_sends(console, partner, webhook_worker):
    # (the test receiver listens on loopback: the test app and the webhooks process allow it)
    pull = partner.issue("pull")
    with receiver() as hook:
        endpoint = partner.call(pull, "POST", "/webhook-endpoints", {
            "url": hook.url, "event_types": ["booking.confirmed"]})["endpoint"]
        ping = partner.call(pull, "POST", f"/webhook-endpoints/{endpoint['endpoint_id']}/ping")
        assert hook.wait_for(1)[0].headers["webhook-id"] == ping["event_id"]

        console.use_key(pull)
        section = console.go("webhooks")
        section.locator("#webhooks-form button").click()
        section.get_by_role("button", name=f"Deliveries to {hook.url}").click()
        retry = section.get_by_role("button", name=f"Retry {ping['event_id']}")
        retry.click()
        received = hook.wait_for(2)
        assert len(received) == 2 and received[1].headers["webhook-id"] == ping["event_id"]
        # the list read again shows the second attempt
        row = section.locator("#deliveries-list tr", has_text=ping["event_id"])
        expect(row.locator("td").nth(3)).to_have_text("2", timeout=20_000)  # attempts

        # and Ping sends a test event to the endpoint
        section.get_by_role("button", name=f"Ping {hook.url}").click()
        pinged = hook.wait_for(3)
        assert len(pinged) == 3 and json.loads(pinged[2].body)["type"] == "ping"
        assert pinged[2].headers["webhook-id"] != ping["event_id"]


def test_an_acknowledgement_from_the_page_reaches_the_resellers_booking(console, partner, db,
                                                                        app):
    if not any(rule.rule.endswith("/hotel-bookings") for rule in app.url_map.iter_rules()):
        pytest.skip("skipped: GET /hotel-bookings (contract 13.2) is not served by this build")
    db.run(seed_demo_ari, dt.datetime.now(dt.timezone.utc))
    pull = partner.issue("pull")
    booking = partner.book(pull, "console-ack-1", "ACME-LIS", "ACME-DBL", "ACME-BAR", day(7),
                           day(9))
    number = booking["confirmation_number"]

    # lisboa-cm receives ACME-LIS's bookings (docs/demo-catalog.json)
    console.use_key(partner.issue("push", partner="lisboa-cm", signed=False))
    section = console.go("bookings")
    section.locator("#hotel-bookings-form [name=acknowledged]").select_option("false")
    section.locator("#hotel-bookings-form button").click()
    row = section.locator("#hotel-bookings-list tr", has_text=number)
    row.get_by_label(f"Hotel's confirmation code for {number} (optional)").fill("HTL-4711")
    row.get_by_role("button", name="Acknowledge confirmed").click()
    status = section.locator("#hotel-bookings-status")
    status.filter(has_text=f"{number} acknowledged as confirmed").wait_for()
    assert "HTL-4711" in status.inner_text()

    seen = partner.call(pull, "GET", f"/bookings/{booking['partner_reference']}")["booking"]
    assert seen["hotel_confirmation_code"] == "HTL-4711" and seen["hotel_acknowledged_at"]
    # and the reseller sees it in the page
    console.use_key(pull)
    section = console.go("bookings")
    section.locator("#bookings-form button").click()
    row = section.locator("#bookings-list tr", has_text=number)
    row.wait_for()
    assert "HTL-4711" in row.inner_text()


def test_a_key_without_the_scope_is_told_which_it_lacks(console, partner):
    console.use_key(partner.issue("pull"))
    console.show_calendar("ACME-LIS", day(1), 5)
    told = console.page.locator("#calendar-status")
    assert "failed" in told.get_attribute("class")
    text = told.inner_text()
    assert text.startswith("This key cannot use this section.")
    assert "one of the scopes ari.write or restriction.write" in text
    assert "the key holds ari.read, booking.cancel" in text and "booking.read" in text
    assert "{" not in text and "success" not in text  # a sentence, not the answer's JSON
    assert console.page.locator("#calendar-grid table").count() == 0

    console.use_key(partner.issue("none"))
    section = console.go("events")
    section.locator("#events-form button[type=submit]").click()
    told = section.locator("#events-status")
    told.filter(has_text="This key cannot use this section.").wait_for()
    assert "the key holds no scope" in told.inner_text()


def test_the_key_stays_in_the_page(console, partner):
    token = partner.issue("push")
    secret = token.partition(".")[2]
    assert "console" in console.use_key(token)
    assert console.page.input_value("#key-token") == ""
    console.show_calendar("ACME-LIS", day(1), 3)
    page = console.page
    assert page.evaluate("localStorage.length + sessionStorage.length") == 0
    assert page.evaluate("document.cookie") == "" and page.context.cookies() == []
    assert secret not in page.url
    api_requests = [r for r in console.requests if API in r.url
                    and not r.url.endswith("/openapi.json")]  # public, unsigned
    assert api_requests and all(r.headers["x-api-key-id"] == token.partition(".")[0]
                                for r in api_requests)
    assert not any(secret in json.dumps(r.headers) + r.url + (r.post_data or "")
                   for r in console.requests)
    # only this origin is asked for anything: the page needs nothing from elsewhere
    assert all(r.url.startswith(console.origin) for r in console.requests)

    console.open()  # a reload
    console.show_calendar("ACME-LIS", day(1), 3)
    assert console.page.locator("#calendar-status").inner_text() == "Paste a key above first."


def test_a_key_that_is_not_one_is_told_plainly(console, partner):
    page, status = console.page, console.page.locator("#key-status")
    page.fill("#key-token", "sbx_without_a_secret")
    page.click("#key-form button[type=submit]")
    expect(status).to_have_text("That is not a whole token: paste <key_id>.<secret>, as the key "
                                "was issued.")
    key_id = partner.issue("push").partition(".")[0]
    page.fill("#key-token", f"{key_id}.not-its-secret")
    page.click("#key-form button[type=submit]")
    expect(status).to_contain_text("invalid_signature")
    assert "failed" in status.get_attribute("class") and "{" not in status.inner_text()
