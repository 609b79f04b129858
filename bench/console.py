"""The partner console in the browser (docs/benchmarks.md, "Partner console"): its first paint,
and the calendar of 10 rows x 90 days drawn after its data has arrived.

    .venv/bin/python -m bench.console [--rounds 20]

The service is the Procfile's `web` (gunicorn, as bench/server.py runs it) over a throwaway
stack (devtools/console_stack.py: the demo data plus a hotel of 2 room types x 4 rate plans,
so 2 + 8 = 10 rows, with a year of demo ARI). Headless Chromium (devtools/browser.py) measures:

- first paint: a fresh browser context per round (nothing cached) opens /console; the Paint
  Timing API's first-contentful-paint, from the navigation's start;
- the calendar: the page marks `pcs:calendar:data` when GET /ari's answer is parsed and
  `pcs:calendar:drawn` after the next paint of the grid (js/calendar.js); also measured from
  the answer's last byte as Playwright's request timing reports it (so JSON parsing counts).

Targets: first paint under 1 s, the calendar under 300 ms after its data."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import date

from devtools.browser import NO_CHROMIUM, ConsolePage, chromium, chromium_path
from devtools.console_stack import console_stack

from .server import WebServer

DAYS = 90
PLANS = ("BAR", "NRF", "SEMI", "LONG")
CALENDAR_HOTEL = {
    "properties": [{
        "code": "CAL1", "name": "Calendar Bench", "environment": "sandbox", "country": "PT",
        "timezone": "Europe/Lisbon", "currency": "EUR", "max_child_age": 11,
        "room_types": [{"code": "DBL", "name": "Double", "max_occupancy": 3},
                       {"code": "TWN", "name": "Twin", "max_occupancy": 2}],
        "rate_plans": [{"code": plan, "name": plan, "board_type": "BB", "currency": "EUR",
                        "room_types": ["DBL", "TWN"], "base_adults": 2, "max_adults": 2,
                        "max_children": 1, "max_occupancy": 3, "allowed_nationalities": [],
                        "blocked_nationalities": [],
                        "cancellation_policy": {"non_refundable": plan == "NRF", "tiers": []}}
                       for plan in PLANS]}],
    "mappings": {"acme": [{"property": "CAL1", "hotel_code": "ACME-CAL", "active": True,
                           "room_types": {"DBL": "ACME-CAL-DBL", "TWN": "ACME-CAL-TWN"},
                           "rate_plans": {plan: f"ACME-CAL-{plan}" for plan in PLANS}}]},
}


def first_paint(browser, origin: str) -> float:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{origin}/console", wait_until="load")
        for _ in range(100):
            paint = page.evaluate("performance.getEntriesByName('first-contentful-paint')"
                                  ".map(e => e.startTime)")
            if paint:
                return paint[0]
            time.sleep(0.02)
        raise RuntimeError("no first-contentful-paint entry")
    finally:
        context.close()


def calendar_draw(console: ConsolePage) -> tuple[float, float, int]:
    """(ms from the parsed answer, ms from the answer's last byte, cells drawn)."""
    page = console.page
    with page.expect_response(lambda r: "/ari?" in r.url) as answer:
        console.show_calendar("ACME-CAL", date.today().isoformat(), DAYS)
    timing = answer.value.request.timing
    for _ in range(100):
        marks = page.evaluate(
            "['pcs:calendar:data', 'pcs:calendar:drawn'].map(n => "
            "performance.getEntriesByName(n).map(e => e.startTime).pop() ?? null)"
            ".concat([performance.timeOrigin])")
        if None not in marks:
            break
        time.sleep(0.02)
    data, drawn, origin = marks
    last_byte = timing["startTime"] + timing["responseEnd"]  # epoch ms
    cells = page.locator("#calendar-grid td.cell").count()
    return drawn - data, origin + drawn - last_byte, cells


def summary(name: str, values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (f"{name}: median {statistics.median(ordered):.0f} ms, p95 {p95:.0f} ms, "
            f"max {ordered[-1]:.0f} ms ({len(ordered)} rounds)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args(argv)
    executable = chromium_path()
    if executable is None:
        raise SystemExit(f"bench.console: {NO_CHROMIUM}")
    with console_stack(CALENDAR_HOTEL) as stack, \
            WebServer("app", stack.procfile_settings) as web, chromium(executable) as browser:
        origin = f"http://127.0.0.1:{web.port}"
        first_paint(browser, origin)  # warm-up: the workers' first requests
        paints = [first_paint(browser, origin) for _ in range(args.rounds)]
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        console = ConsolePage(page, origin)
        console.open()
        console.use_key(stack.issue("push"))
        calendar_draw(console)  # warm-up
        draws = [calendar_draw(console) for _ in range(args.rounds)]
    rows = draws[0][2] // DAYS
    print(summary("first paint (first-contentful-paint)", paints))
    print(summary(f"calendar {rows} rows x {DAYS} days, from the parsed answer",
                  [d[0] for d in draws]))
    print(summary(f"calendar {rows} rows x {DAYS} days, from the answer's last byte",
                  [d[1] for d in draws]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
