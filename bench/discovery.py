"""Discovery scenarios: search (200 hotels x 7 nights) beside its database floor (the same
statement with the same parameters through psycopg, in a transaction like the service's), and
rates (one property x 14 nights). Request i asks for a different window of hotels and dates, so
no two consecutive requests read the same rows."""

from __future__ import annotations

import json
import os
import time
import urllib.request
from collections.abc import Callable, Mapping
from datetime import date, datetime, timezone

import psycopg
from psycopg.rows import dict_row

from connectivity.availability.search import search_parameters
from connectivity.settings import shared_search_model
from connectivity.store.queries import queries

from .dataset import ALL_PARTNER
from .load import Request
from .server import PROBE_REQUEST_ID, REFERENCE
from .scenarios import (
    API,
    DISCOVERY_CONCURRENCY,
    Context,
    direct_scenario,
    http_scenario,
)

SEARCH_HOTELS, SEARCH_NIGHTS, RATES_NIGHTS = 200, 7, 14


def search_request(stay_date: Callable[[int], date], codes: list[str], i: int) -> dict:
    """Request i: its window of hotels and dates (`stay_date(n)`: the n-th day of stays)."""
    start = abs(i) * SEARCH_HOTELS % len(codes)
    window = (codes + codes)[start:start + SEARCH_HOTELS]
    check_in = stay_date(1 + abs(i) % 60)
    return {"hotel_codes": window, "check_in": check_in.isoformat(),
            "check_out": stay_date(1 + abs(i) % 60 + SEARCH_NIGHTS).isoformat(),
            "rooms": 1, "occupancy": [{"adults": 2}]}


@http_scenario("search", f"POST /availability/search, {SEARCH_HOTELS} hotels x "
               f"{SEARCH_NIGHTS} nights", requests=600, concurrency=DISCOVERY_CONCURRENCY)
def search(ctx: Context):
    if ctx.base_url:
        wait_for_search_model(ctx.base_url, len(ctx.hotel_codes()))
    return search_requests(ctx)


def search_requests(ctx: Context):
    auth, codes = ctx.bearer(), ctx.hotel_codes()

    def make(i):
        body = json.dumps(search_request(ctx.stay_date, codes, i)).encode()
        return Request("POST", f"{API}/availability/search", body, auth)
    return make


def wait_for_search_model(base_url: str, hotels: int, timeout: float = 900,
                          env: Mapping[str, str] = os.environ) -> None:
    """Until the machine's model host (or, with SEARCH_MODEL_SHARED off, every web process's
    own model) holds the data set (SEARCH_MODEL_PRELOAD, which the bench sets): figures taken
    while it loads would measure the load. `env`: the server's settings."""
    workers = (1 if shared_search_model(env)
               else int(env.get("WEB_CONCURRENCY") or (os.cpu_count() or 1) * 2))
    began = time.monotonic()
    while time.monotonic() - began < timeout:
        held = sorted(value for series, value in scrape(base_url)
                      if series.startswith("pcs_search_model_properties"))
        # Shared: the host's figure (every other process reports 0); else every worker's.
        held = held[-workers:]
        if len(held) >= workers and min(held) >= hotels:
            print(f"  search model loaded ({workers} held) after "
                  f"{time.monotonic() - began:.0f} s", flush=True)
            return
        time.sleep(0.5)
    raise RuntimeError(f"the search model did not load within {timeout:.0f} s")


def catch_up_totals(base_url: str) -> tuple[float, float]:
    """(catch-ups, their seconds) the read model has counted so far (GET /metrics): the model
    host's, or every web process's own, summed."""
    totals = {"count": 0.0, "sum": 0.0}
    for series, value in scrape(base_url):
        for kind in totals:
            name = f"pcs_search_model_catch_up_seconds_{kind}"
            if series == name or series.startswith(name + "{"):
                totals[kind] += value
    return totals["count"], totals["sum"]


def scrape(base_url: str) -> list[tuple[str, float]]:
    """Every sample the server's GET /metrics gives now: (its series, name and labels, and its
    value). Asked as a probe, like the server's start-up ones: its log line is not a
    scenario's request."""
    poll = urllib.request.Request(f"{base_url}/metrics",
                                  headers={"X-Request-Id": PROBE_REQUEST_ID})
    text = urllib.request.urlopen(poll, timeout=10).read().decode()
    return [(series, float(value)) for series, _, value in
            (line.rpartition(" ") for line in text.splitlines()
             if line and not line.startswith("#"))]


@http_scenario("search-reference", f"the same searches answered by search.sql alone "
               "(SEARCH_READ_MODEL=off): the reference the read model is measured against",
               server=REFERENCE, requests=600, concurrency=DISCOVERY_CONCURRENCY)
def search_reference(ctx: Context):
    return search_requests(ctx)


@direct_scenario("search-floor", "the search statement alone, through psycopg: the database "
                 "floor", requests=600, concurrency=DISCOVERY_CONCURRENCY)
def search_floor(ctx: Context):
    codes = ctx.hotel_codes()
    with psycopg.connect(ctx.database_url) as conn:
        partner_id = conn.execute("SELECT id FROM partners WHERE code = %s",
                                  (ALL_PARTNER,)).fetchone()[0]

    def open_op():
        conn = psycopg.connect(ctx.database_url, row_factory=dict_row, options="-c jit=off")

        def op(i):
            request = search_request(ctx.stay_date, codes, i)
            for day in ("check_in", "check_out"):
                request[day] = datetime.fromisoformat(request[day]).date()
            with conn.transaction():
                rows = queries().availability.search_hotels(
                    conn, **search_parameters(partner_id, "sandbox", request["hotel_codes"],
                                              request, datetime.now(timezone.utc)))
            return "ok" if len(rows) == SEARCH_HOTELS else f"rows:{len(rows)}"
        return op
    return open_op


@http_scenario("rates", f"POST /availability/rates, one property x {RATES_NIGHTS} nights",
               requests=2000, concurrency=DISCOVERY_CONCURRENCY)
def rates(ctx: Context):
    if ctx.base_url:
        # Rates does not read the model, but the server loads it (SEARCH_MODEL_PRELOAD):
        # measured during the load, rates' CPU per request was mostly the load's.
        wait_for_search_model(ctx.base_url, len(ctx.hotel_codes()))
    auth, codes = ctx.bearer(), ctx.hotel_codes()

    def make(i):
        body = json.dumps({
            "hotel_code": codes[abs(i) * 7 % len(codes)],
            "check_in": ctx.stay_date(1 + abs(i) % 60).isoformat(),
            "check_out": ctx.stay_date(1 + abs(i) % 60 + RATES_NIGHTS).isoformat(),
            "rooms": 1, "occupancy": [{"adults": 2}]}).encode()
        return Request("POST", f"{API}/availability/rates", body, auth)
    return make
