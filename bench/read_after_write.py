"""The concurrent checker of contract 13.1 (reads follow acknowledged writes): threads that write
and read through gunicorn's processes for a while, recording when each write was sent and
acknowledged and when each read began and ended, then a check of every read against every write.

`python -m bench.read_after_write [--seconds 60] [--web-processes 2]` starts its own stack (a
database of its own on DATABASE_URL's server, or an embedded one; gunicorn as the Procfile runs
it with the search model on; the RQ worker), and exits non-zero on any violation.

The hotel has two room types with one plan each, on NIGHTS nights:
- `B`: booked one room a night at a time and cancelled half the time, by BOOKERS threads (a
  booking's 201 and a cancel's 200 are acknowledgements);
- `A`: its plan's rate pushed by ARI_WRITERS threads, each owning some nights and raising their
  rate by 1 each time; a push is acknowledged when its batch status reads `applied`.
READERS threads read POST /availability/rates for all the nights, over and over. Each read,
per night, is held to every write:
- B's rooms left are at most the start minus the bookings acknowledged before the read began
  whose cancel was not yet sent when it ended, and at least the start minus the bookings sent
  before it ended whose cancel was not acknowledged before it began;
- A's amount is at least the highest rate acknowledged before the read began, and at most the
  highest sent before it ended.
A read that misses a write acknowledged before it began fails the first or third rule."""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import random
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from .ari import WorkerProcess
from .discovery import catch_up_totals, scrape
from .server import WebServer
from .soak import prepare, start_services

API = "/api/connectivity/v1"
DATABASE = os.environ.get("READ_AFTER_WRITE_DATABASE", "pcs_read_after_write")
REDIS_PREFIX = "pcs-raw:"
HOTEL = "RAW-H"
NIGHTS = 14
ROOMS = 9_999            # B's rooms a night (the most ARI sets): never sold out
START_RATE = 100
BOOKERS, ARI_WRITERS, READERS = 2, 2, 3
START = dt.date.today() + dt.timedelta(days=3)


def night(i: int) -> str:
    return (START + dt.timedelta(days=i)).isoformat()


def catalog() -> dict:
    return {
        "properties": [{
            "code": "RAW1", "name": "Read After Write", "environment": "sandbox",
            "country": "PT", "timezone": "UTC", "currency": "EUR", "max_child_age": 11,
            "room_types": [{"code": r, "name": f"Room {r}", "max_occupancy": 2}
                           for r in ("A", "B")],
            "rate_plans": [{
                "code": "BAR", "name": "Flexible", "board_type": "RO", "currency": "EUR",
                "room_types": ["A", "B"], "base_adults": 2, "max_adults": 2,
                "max_children": 0, "max_occupancy": 2, "allowed_nationalities": [],
                "blocked_nationalities": [],
                "cancellation_policy": {"non_refundable": False, "tiers": []}}]}],
        "partners": [{"code": "raw", "name": "Read After Write", "mappings": [{
            "property": "RAW1", "hotel_code": HOTEL, "active": True,
            "room_types": {"A": "A", "B": "B"}, "rate_plans": {"BAR": "BAR"}}]}],
        "fx_rates": []}


@dataclass
class Booking:
    night: int
    sent: float
    acked: float | None = None
    cancel_sent: float | None = None
    cancel_acked: float | None = None


@dataclass
class RatePush:
    night: int
    rate: int
    sent: float
    acked: float | None = None


@dataclass
class Read:
    began: float
    ended: float
    rooms: dict[int, int] = field(default_factory=dict)   # B's rooms left per night
    rates: dict[int, int] = field(default_factory=dict)   # A's amount per night


class Client:
    """One keep-alive connection (so one gunicorn process while it lasts) and a key."""

    def __init__(self, port: int, token: str):
        self._conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self._auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        self._conn.request(method, API + path, None if body is None else json.dumps(body),
                           self._auth)
        response = self._conn.getresponse()
        return response.status, json.loads(response.read())


class Run:
    def __init__(self, port: int, pull: str, push: str, seconds: float, seed: int):
        self.port, self.pull, self.push = port, pull, push
        self.until = time.monotonic() + seconds
        self.seed = seed
        self.bookings: list[Booking] = []
        self.pushes: list[RatePush] = []
        self.reads: list[Read] = []
        self.errors: Counter = Counter()

    def book(self, k: int) -> None:
        rng, client = random.Random(self.seed * 100 + k), Client(self.port, self.pull)
        n = 0
        while time.monotonic() < self.until:
            n += 1
            i = rng.randrange(NIGHTS)
            booking = Booking(i, time.monotonic())
            self.bookings.append(booking)
            status, answer = client.call("POST", "/bookings", {
                "partner_reference": f"RAW-{k}-{n}", "hotel_code": HOTEL,
                "room_type_code": "B", "rate_plan_code": "BAR", "check_in": night(i),
                "check_out": night(i + 1), "rooms": 1,
                "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                            "is_adult": True}],
                "contact": {"first_name": "Ana", "email": "ana@example.com"},
                "total_amount": START_RATE, "currency": "EUR"})
            if status != 201:
                self.errors[f"book {status} {answer.get('error', {}).get('code')}"] += 1
                booking.acked = None
                continue
            booking.acked = time.monotonic()
            if rng.random() < 0.5:
                booking.cancel_sent = time.monotonic()
                status, answer = client.call("POST", f"/bookings/RAW-{k}-{n}/cancel", {})
                if status == 200:
                    booking.cancel_acked = time.monotonic()
                else:
                    self.errors[f"cancel {status}"] += 1
            time.sleep(rng.uniform(0.1, 0.3))  # about 5 bookings a second per booker

    def push_rates(self, k: int) -> None:
        client = Client(self.port, self.push)
        owned = [i for i in range(NIGHTS) if i % ARI_WRITERS == k]
        rates = {i: START_RATE for i in owned}
        turn = 0
        while time.monotonic() < self.until:
            i = owned[turn % len(owned)]
            turn += 1
            rates[i] += 1
            pushed = RatePush(i, rates[i], time.monotonic())
            self.pushes.append(pushed)
            status, answer = client.call("PUT", "/ari", {"hotel_code": HOTEL, "items": [
                {"room_type_code": "A", "rate_plan_code": "BAR", "date": night(i),
                 "rate": rates[i]}]})
            if status != 202:
                self.errors[f"ari {status}"] += 1
                continue
            batch = answer["data"]["batch_id"]
            while time.monotonic() < self.until + 30:
                status, answer = client.call("GET", f"/ari/batches/{batch}")
                if answer["data"]["status"] == "applied":
                    pushed.acked = time.monotonic()
                    break
                time.sleep(0.005)

    def read(self, k: int) -> None:
        client = Client(self.port, self.pull)
        body = {"hotel_code": HOTEL, "check_in": night(0), "check_out": night(NIGHTS),
                "rooms": 1, "occupancy": [{"adults": 2}]}
        while time.monotonic() < self.until:
            began = time.monotonic()
            status, answer = client.call("POST", "/availability/rates", body)
            ended = time.monotonic()
            if status != 200:
                self.errors[f"rates {status}"] += 1
                continue
            read = Read(began, ended)
            for room in answer["data"]["room_types"]:
                for plan in room["rate_plans"]:
                    for at, one in enumerate(plan["nights"]):
                        if room["room_type_code"] == "B":
                            read.rooms[at] = one["available_rooms"]
                        else:
                            read.rates[at] = None if one["amount"] is None else round(
                                float(one["amount"]))
            self.reads.append(read)

    def go(self) -> None:
        threads = ([threading.Thread(target=self.book, args=(k,)) for k in range(BOOKERS)]
                   + [threading.Thread(target=self.push_rates, args=(k,))
                      for k in range(ARI_WRITERS)]
                   + [threading.Thread(target=self.read, args=(k,)) for k in range(READERS)])
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def check(self) -> list[str]:
        violations = []
        for read in self.reads:
            for i in range(NIGHTS):
                held = [b for b in self.bookings if b.night == i]
                at_most = ROOMS - sum(
                    1 for b in held if b.acked is not None and b.acked < read.began
                    and (b.cancel_sent is None or b.cancel_sent >= read.ended))
                at_least = ROOMS - sum(
                    1 for b in held if b.sent < read.ended
                    and (b.cancel_acked is None or b.cancel_acked >= read.began))
                rooms = read.rooms.get(i)
                if rooms is None or not at_least <= rooms <= at_most:
                    violations.append(f"read at {read.began:.3f}: night {i} shows {rooms} B "
                                      f"rooms, expected {at_least}..{at_most}")
                pushes = [p for p in self.pushes if p.night == i]
                floor = max([p.rate for p in pushes if p.acked is not None
                             and p.acked < read.began], default=START_RATE)
                ceiling = max([p.rate for p in pushes if p.sent < read.ended],
                              default=START_RATE)
                rate = read.rates.get(i)
                if rate is None or not floor <= rate <= ceiling:
                    violations.append(f"read at {read.began:.3f}: night {i} rate {rate}, "
                                      f"expected {floor}..{ceiling}")
        return violations


def seed_ari(port: int, push: str) -> None:
    """Every night: B ROOMS rooms, A 10; BAR at START_RATE on both; applied before the run."""
    client = Client(port, push)
    items = [item for i in range(NIGHTS) for item in (
        {"room_type_code": "B", "date": night(i), "availability": ROOMS},
        {"room_type_code": "A", "date": night(i), "availability": 10},
        {"room_type_code": "B", "rate_plan_code": "BAR", "date": night(i), "rate": START_RATE},
        {"room_type_code": "A", "rate_plan_code": "BAR", "date": night(i),
         "rate": START_RATE})]
    status, answer = client.call("PUT", "/ari", {"hotel_code": HOTEL, "items": items})
    assert status == 202, answer
    deadline = time.monotonic() + 60
    while client.call("GET", f"/ari/batches/{answer['data']['batch_id']}")[1]["data"][
            "status"] != "applied":
        assert time.monotonic() < deadline, "the seed batch was not applied within 60 s"
        time.sleep(0.1)


def catch_up_figures(port: int) -> str:
    """How many catch-ups the read model made (the model host's, or every worker's own), and
    their mean time, from /metrics."""
    count, total = catch_up_totals(f"http://127.0.0.1:{port}")
    return f"{count:.0f}, {1000 * total / count:.1f} ms on average" if count else "none"


def rates_sources(port: int) -> str:
    """Where the rates reads were answered, from /metrics: in the worker from the host's arrays
    (`mapped`), by the model (the host, or a worker's own), by the statements."""
    found = {series.split('source="')[1].split('"')[0]: value
             for series, value in scrape(f"http://127.0.0.1:{port}")
             if series.startswith("pcs_rates_requests_total{")}
    return ", ".join(f"{name} {found.get(name, 0):.0f}"
                     for name in ("mapped", "model", "statements"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--web-processes", type=int, default=2)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    services = start_services("raw", DATABASE, REDIS_PREFIX)
    settings = {**services.settings(), "WEB_CONCURRENCY": str(args.web_processes),
                "SEARCH_MODEL_LOADING": "inline"}
    pull, push = prepare(services, catalog(), "raw")
    server, worker = WebServer("app", settings), WorkerProcess(settings, "raw-worker.log")
    try:
        server.start()
        worker.start()
        seed_ari(server.port, push)
        run = Run(server.port, pull, push, args.seconds, args.seed)
        began = time.monotonic()
        run.go()
        took = time.monotonic() - began
        catch_ups = catch_up_figures(server.port)
        sources = rates_sources(server.port)
    finally:
        worker.stop()
        server.stop()
        services.stop()
    violations = run.check()
    booked = [b for b in run.bookings if b.acked is not None]
    print(f"read-after-write: {took:.0f} s, {args.web_processes} web processes, "
          f"{READERS} readers, {BOOKERS} bookers, {ARI_WRITERS} ARI writers")
    print(f"  writes acknowledged: {len(booked)} bookings, "
          f"{sum(b.cancel_acked is not None for b in booked)} cancels, "
          f"{sum(p.acked is not None for p in run.pushes)} ARI batches applied")
    print(f"  reads checked: {len(run.reads)} ({len(run.reads) * NIGHTS * 2} night values)")
    print(f"  rates answered: {sources} (mapped: in a worker, from the host's arrays)")
    print(f"  the read model's catch-ups (the model host's, or every worker's): {catch_ups}")
    print(f"  errors: {dict(run.errors) or 'none'}")
    print(f"  violations: {len(violations)}")
    for line in violations[:20]:
        print(f"    {line}")
    ok = not violations and not run.errors
    print("  OK" if ok else "  FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
