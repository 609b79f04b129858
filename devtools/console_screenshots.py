"""Screenshots of each section of the partner console, from the demo data, for docs/console.md:

    .venv/bin/python -m devtools.console_screenshots [--out docs]

Starts a throwaway service (devtools/console_stack.py: the demo catalogue and demo ARI, the
worker and the webhooks process), acts as the demo partners would through the API (an ARI push
with a rejected item, bookings, a cancellation, webhook endpoints with a receiver that fails
once and one that refuses connections), then drives the console in headless Chromium and
writes docs/console-<section>.png. Needs Chromium (devtools/browser.py)."""

from __future__ import annotations

import argparse
import socket
import sys
import time
from datetime import date, timedelta
from pathlib import Path

from devtools.browser import NO_CHROMIUM, ConsolePage, chromium, chromium_path
from devtools.console_stack import console_stack
from devtools.webhook_receiver import receiver

DOCS = Path(__file__).resolve().parent.parent / "docs"
VIEWPORT = {"width": 1440, "height": 760}


def day(offset: int) -> str:
    return (date.today() + timedelta(days=offset)).isoformat()


def refused_url() -> str:
    """A loopback port nothing listens on: deliveries there fail with `connection refused`."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/hook"


def wait_until(what: str, check, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.3)


def set_the_scene(stack, hook) -> dict:
    """What the demo partners do before the pictures; the keys and ids the pictures need."""
    push = stack.issue("push", name="demo-push")
    pull = stack.issue("pull", name="demo-pull")
    channel = stack.issue("push", partner="lisboa-cm", name="demo-channel", signed=False)
    batch = stack.push(push, "/ari", {"hotel_code": "ACME-LIS", "items": [
        {"room_type_code": "ACME-DBL", "date": day(3), "availability": 0},
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(5),
         "rate": 135, "min_stay": 2},
        {"room_type_code": "ACME-SGL", "date": day(6), "closed": True},
        {"room_type_code": "ACME-TPL", "date": day(6), "availability": 4},
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(800),
         "rate": 120}]})
    stack.push(push, "/ari/restrictions", {"hotel_code": "ACME-LIS", "items": [
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-NRF", "from_date": day(8),
         "to_date": day(9), "closed_to_arrival": True}]})
    endpoints = [stack.call(pull, "POST", "/webhook-endpoints", {
        "url": url, "event_types": ["*"], "description": description})["endpoint"]
        for url, description in ((hook.url, "reservations desk"),
                                 (refused_url(), "old server, switched off"))]
    bookings = [stack.book(pull, f"ACME-{n}", "ACME-LIS", "ACME-DBL", plan, day(10 + n),
                           day(12 + n)) for n, plan in ((1, "ACME-BAR"), (2, "ACME-NRF"),
                                                        (3, "ACME-BAR"))]
    stack.call(pull, "POST", f"/bookings/{bookings[2]['partner_reference']}/cancel", {})
    for endpoint in endpoints:
        stack.call(pull, "POST", f"/webhook-endpoints/{endpoint['endpoint_id']}/ping")
    # the receiver answered 503 once, then took the retry; the switched-off server's first
    # attempts have failed meanwhile
    wait_until("the webhook deliveries", lambda: len(hook.received) >= 6)
    time.sleep(3)
    return {"push": push, "pull": pull, "channel": channel, "batch_id": batch["batch_id"],
            "failing": endpoints[1]["url"], "booking": bookings[0]["confirmation_number"]}


def hotel_bookings_served(stack, channel: str) -> bool:
    try:
        stack.call(channel, "GET", "/hotel-bookings")
    except RuntimeError as refused:
        if " 404 " in str(refused):
            return False
        raise
    return True


def take(page, name: str, out: Path) -> Path:
    path = out / f"console-{name}.png"
    page.screenshot(path=str(path), full_page=True)
    print(f"wrote {path}")
    return path


def pictures(console: ConsolePage, scene: dict, out: Path, with_hotel_bookings: bool) -> None:
    page = console.page
    console.use_key(scene["push"])
    console.show_calendar("ACME-LIS", day(0), 21)
    page.mouse.move(0, 0)
    page.locator("#calendar-grid td.cell[data-r='0'][data-c='3']").focus()  # the sold-out day
    take(page, "calendar", out)

    section = console.go("batches")
    section.locator("[name=batch_id]").fill(scene["batch_id"])
    section.locator("button[type=submit]").click()
    section.locator("#batches-outcome table").wait_for()
    take(page, "batches", out)

    if with_hotel_bookings:
        console.use_key(scene["channel"])
        section = console.go("bookings")
        section.locator("#hotel-bookings-form button").click()
        row = section.locator("#hotel-bookings-list tr", has_text=scene["booking"])
        row.locator("input").fill("LIS-88231")
        row.get_by_role("button", name="Acknowledge confirmed").click()
        section.locator("#hotel-bookings-status", has_text="acknowledged as").wait_for()
        take(page, "hotel-bookings", out)

    console.use_key(scene["pull"])
    section = console.go("bookings")
    section.locator("#bookings-form button").click()
    section.locator("#bookings-list table").wait_for()
    take(page, "bookings", out)

    section = console.go("events")
    section.locator("#events-form button[type=submit]").click()
    section.locator("#events-status", has_text="so far").wait_for()
    take(page, "events", out)
    section.locator("#events-stop").click()

    section = console.go("webhooks")
    section.locator("#webhooks-form button").click()
    section.get_by_role("button", name=f"Deliveries to {scene['failing']}").click()
    section.locator("#deliveries-list table").wait_for()
    take(page, "webhooks", out)

    console.go("calendar")
    console.show_calendar("ACME-LIS", day(0), 21)  # a pull key: no ari.write
    take(page, "scope", out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DOCS, help="folder of the pictures (docs/)")
    args = parser.parse_args(argv)
    executable = chromium_path()
    if executable is None:
        raise SystemExit(f"console screenshots: {NO_CHROMIUM}")
    args.out.mkdir(parents=True, exist_ok=True)
    with console_stack(process_settings={"WEBHOOK_RETRY_SCHEDULE": "2,600"}) as stack, \
            receiver(answer=lambda n: 503 if n == 0 else 204) as hook:
        scene = set_the_scene(stack, hook)
        with_hotel_bookings = hotel_bookings_served(stack, scene["channel"])
        if not with_hotel_bookings:
            print("GET /hotel-bookings is not served by this build: no console-hotel-bookings.png")
        with chromium(executable) as browser:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(60_000)
            console = ConsolePage(page, stack.origin)
            console.open()
            pictures(console, scene, args.out, with_hotel_bookings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
