"""Invariants under load (`make soak`; minutes, not part of `make test`).

gunicorn as the Procfile runs it, plus the Procfile's worker, in a database of the soak's own
(recreated each run) and under a Redis prefix of its own. 16 client threads send 10,000 random
operations over HTTP and record every answer:

  phase 1  PUT /ari setting availability and rates on every room type (concurrently, so the
           batches are accepted in an order no client knows; their `seq` says it);
  phase 2  book (half of them with a quote first), cancel a booking, push a reservation, cancel
           (sometimes an orphan) or modify a reservation, and PUT /ari on room types reserved
           for ARI, all mixed, while the worker applies those batches.

Why it is exact: ARI sets availability absolutely, so a batch applied in the middle of the
bookings would make the expectation depend on commit order. Booking room types get their ARI
only in phase 1 (all applied before phase 2 starts); ARI-only room types are never booked.
Then, for every room type and night:

  ARI-only room types   available == the value of the last item in acceptance order
                        (batch seq, then position in the batch) that set it;
  booked room types     available == phase-1 value
                                     - rooms of every booking answered 201 and not cancelled
                                     - `taken` of every reservation night still held,
  and available >= 0 everywhere.

A pushed reservation takes least(available, wanted), which depends on the interleaving, so what
each took is read from the service's own record (reservation_nights), and held against the
recorded answers: a reservation whose cancel was answered holds nothing, one never cancelled
holds a row for every night and room type it asked for, never more than it wanted. Bookings
confirmed in the database must be exactly those answered 201 and not cancelled. Any 5xx or
transport error is a failure.

    make soak                         # or: python -m bench.soak --operations 10000 --clients 16

With --cluster it aims at the topology `make cluster` runs (devtools/cluster.py) instead
of starting its own: the clients are spread over both web instances, searches join the mix (read
on the streaming replica), the cluster's database is emptied first, and one more check: every
accepted ARI batch reached a final status, applied exactly once by one of the two competing
workers (their logs hold one `ari_batch_applied` line per batch, and a second run of a job says
`ari_batch_already_finished`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import random
import sys
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import psycopg
import redis
from psycopg import sql
from psycopg.conninfo import make_conninfo

from connectivity.auth.credentials import SigningVault
from devtools.stack import LOCAL, EmbeddedPostgres, EmbeddedRedis, secret_key
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.operator.keys import issue_key
from connectivity.operator.migrations import upgrade

from .ari import WorkerProcess
from .server import WebServer

API = "/api/connectivity/v1"
DATABASE = os.environ.get("SOAK_DATABASE", "pcs_soak")
REDIS_PREFIX = "pcs-soak:"
HOTEL = "SOAK-H"
BOOKED = [f"B{i}" for i in range(6)]   # booked and reserved; ARI only in phase 1
ARI_ONLY = [f"A{i}" for i in range(4)]  # ARI in both phases, never booked
NIGHTS = 30
RATE = 100  # every night of BAR, for two adults: a booking's total is known without a quote
PHASE_1_SHARE = 0.05
# Phase-2 mix (weights).
MIX = {"book": 35, "cancel_booking": 12, "push_reservation": 25, "cancel_reservation": 10,
       "modify_reservation": 10, "ari": 8}
# On a cluster, searches too: the reads the replica serves.
CLUSTER_MIX = {**MIX, "search": 20}


def catalog() -> dict:
    rooms = BOOKED + ARI_ONLY
    return {
        "properties": [{
            "code": "SOAK1", "name": "Soak Hotel", "environment": "sandbox", "country": "PT",
            "timezone": "UTC", "currency": "EUR", "max_child_age": 11,
            "room_types": [{"code": r, "name": f"Room {r}", "max_occupancy": 4} for r in rooms],
            "rate_plans": [{
                "code": "BAR", "name": "Flexible", "board_type": "RO", "currency": "EUR",
                "room_types": rooms, "base_adults": 2, "max_adults": 3, "max_children": 2,
                "max_occupancy": 4, "allowed_nationalities": [], "blocked_nationalities": [],
                "cancellation_policy": {"non_refundable": False, "tiers": []}}]}],
        "partners": [{"code": "soak", "name": "Soak Partner", "mappings": [{
            "property": "SOAK1", "hotel_code": HOTEL, "active": True,
            "room_types": {r: r for r in rooms}, "rate_plans": {"BAR": "BAR"}}]}],
        "fx_rates": []}


# --- services -----------------------------------------------------------------------------------

@dataclass
class Services:
    database_url: str
    redis_url: str
    secret_key: str
    embedded: list
    redis_prefix: str = REDIS_PREFIX

    def settings(self) -> dict[str, str]:
        return {"DATABASE_URL": self.database_url, "REDIS_URL": self.redis_url,
                "SECRET_KEY": self.secret_key, "REDIS_PREFIX": self.redis_prefix}

    def stop(self) -> None:
        for service in reversed(self.embedded):
            service.stop()


def start_services(name: str = "soak", database: str = DATABASE,
                   redis_prefix: str = REDIS_PREFIX) -> Services:
    """DATABASE_URL / REDIS_URL from the environment, embedded servers (under .local/NAME-*)
    otherwise; a fresh `database` each run, and no key left under `redis_prefix`."""
    embedded = []
    server_url = os.environ.get("DATABASE_URL")
    if not server_url:
        print(f"DATABASE_URL unset: starting an embedded PostgreSQL under .local/{name}-pgdata")
        pg = EmbeddedPostgres(LOCAL / f"{name}-pgdata", "postgres")
        embedded.append(pg)
        server_url = pg.url
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        print(f"REDIS_URL unset: starting an embedded Redis under .local/{name}-redis")
        rd = EmbeddedRedis(LOCAL / f"{name}-redis", persist=False)
        embedded.append(rd)
        redis_url = rd.url
    with psycopg.connect(make_conninfo(server_url, dbname="postgres"), autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(database)))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
    database_url = make_conninfo(server_url, dbname=database)
    upgrade(database_url)
    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(match=f"{redis_prefix}*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()
    key = os.environ.get("SECRET_KEY") or secret_key(LOCAL / f"{name}-secret_key")
    return Services(database_url, redis_url, key, embedded, redis_prefix)


def cluster_services() -> tuple[Services, dict[str, str]]:
    """The settings `make cluster` wrote; its database emptied for this run."""
    from devtools.cluster import CLUSTER
    path = CLUSTER / "env"
    if not path.exists():
        raise SystemExit(f"{path} not found: start `make cluster` first, in another terminal")
    env = dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    env = {name: value.strip("'") for name, value in env.items()}
    # The checks read the primary itself, not through PgBouncer.
    database_url = env["DATABASE_DIRECT_URL"]
    with psycopg.connect(database_url, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
            "AND tablename <> 'schema_migrations'")]
        conn.execute(sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(
            sql.SQL(", ").join(sql.Identifier(t) for t in tables)))
    print(f"soaking the cluster of {path.relative_to(LOCAL.parent)} (its tables emptied first): "
          f"web {env['WEB_URLS']}")
    return Services(database_url, env["REDIS_URL"], env["SECRET_KEY"], []), env


def applied_exactly_once(accepted: set[str], worker_logs: list[str]) -> tuple[list[str], dict]:
    """Violations of "each accepted batch applied once", from the workers' own log lines, and
    how many each worker applied."""
    applied, per_worker, repeated = Counter(), {}, 0
    for path in worker_logs:
        count = 0
        with open(path, errors="replace") as log:
            for line in log:
                if '"ari_batch_' not in line or not line.startswith("{"):
                    continue
                event = json.loads(line)
                if event.get("event") == "ari_batch_applied":
                    applied[event["batch_id"]] += 1
                    count += 1
                elif event.get("event") == "ari_batch_already_finished":
                    repeated += 1
        per_worker[os.path.basename(path)] = count
    violations = [f"ARI batch {b} applied {applied[b]} times" for b in sorted(accepted)
                  if applied[b] != 1]
    violations += [f"ARI batch {b} applied but never accepted" for b in set(applied) - accepted]
    return violations, {"applied_by": per_worker, "second_runs_that_did_nothing": repeated}


def prepare(services: Services, loaded: dict | None = None, partner: str = "soak"
            ) -> tuple[str, str]:
    """The catalogue (the soak's, or `loaded`) and two keys of `partner` (pull; push,
    unsigned: signing is tested elsewhere and the soak is about what the database ends up
    holding)."""
    vault = SigningVault(services.secret_key)
    with psycopg.connect(services.database_url, row_factory=psycopg.rows.dict_row) as conn:
        load_catalog(conn, parse_catalog(json.dumps(loaded or catalog())))
        tokens = [issue_key(conn, vault, partner_code=partner, name=f"{partner} {preset}",
                            environment="sandbox", preset=preset, signed=False,
                            rate_limit=100000).token for preset in ("pull", "push")]
        conn.commit()
    return tokens[0], tokens[1]


def landed(status: int, answer: dict | None) -> bool:
    """Created: 201, or 200 replaying it (a retry after a dropped connection that had been
    received after all: the reference is the idempotency key)."""
    return status == 201 or (status == 200 and bool(answer) and answer["data"]["idempotent_replay"])


# --- the operations -----------------------------------------------------------------------------

@dataclass
class Record:
    kind: str
    status: int           # the operation's last answer; 0 for a transport error
    body: dict | None
    sent: dict | None = None
    statuses: list = field(default_factory=list)   # every answer (a quote, then its booking)


class Soak:
    def __init__(self, ports: list[int], pull: str, push: str, operations: int, clients: int,
                 seed: int, mix: dict[str, int] = MIX):
        self.ports, self.clients, self.mix = ports, clients, mix
        self.pull = {"Authorization": f"Bearer {pull}", "Content-Type": "application/json"}
        self.push = {"Authorization": f"Bearer {push}", "Content-Type": "application/json"}
        self.start = dt.date.today() + dt.timedelta(days=10)
        self.phase_1 = max(20, int(operations * PHASE_1_SHARE))
        self.phase_2 = operations - self.phase_1
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.records: list[Record] = []
        self.bookings: list[str] = []       # answered 201
        self.reservations: list[str] = []   # answered 201
        self.counter = 0
        self.local = threading.local()

    def date(self, offset: int) -> str:
        return (self.start + dt.timedelta(days=offset)).isoformat()

    # HTTP: one keep-alive connection per client thread.
    def call(self, method: str, path: str, body: dict, headers: dict) -> tuple[int, dict | None]:
        for attempt in (1, 2):
            conn = getattr(self.local, "conn", None)
            if conn is None:
                port = getattr(self.local, "port", self.ports[0])
                conn = self.local.conn = http.client.HTTPConnection("127.0.0.1", port,
                                                                    timeout=60)
            try:
                conn.request(method, API + path, json.dumps(body).encode(), headers)
                response = conn.getresponse()
                raw = response.read()
                try:
                    return response.status, json.loads(raw)
                except ValueError:
                    return response.status, None
            except (ConnectionError, http.client.HTTPException, TimeoutError) as exc:
                conn.close()
                self.local.conn = None
                # A keep-alive connection the server closed between two requests: nothing was
                # sent, so once more on a new one. A second failure is recorded as status 0.
                if attempt == 2 or isinstance(exc, TimeoutError):
                    return 0, {"transport_error": repr(exc)}
        raise AssertionError("unreachable")

    def record(self, record: Record) -> Record:
        if not record.statuses:
            record.statuses = [record.status]
        with self.lock:
            self.records.append(record)
        return record

    def next_index(self) -> int:
        with self.lock:
            self.counter += 1
            return self.counter

    # ARI ----------------------------------------------------------------------------------------
    def put_ari(self, rng: random.Random, room_types: list[str], full: bool = False) -> Record:
        items = []
        days = range(NIGHTS) if full else sorted(rng.sample(range(NIGHTS), rng.randint(1, 12)))
        for room_type in (room_types if full else rng.sample(room_types, rng.randint(1, 2))):
            for d in days:
                item = {"room_type_code": room_type, "date": self.date(d),
                        "availability": rng.randint(0, 40) if room_type in ARI_ONLY
                        else rng.randint(20, 80)}
                if room_type in BOOKED:
                    item |= {"rate_plan_code": "BAR", "rate": f"{RATE}.00"}
                items.append(item)
        rng.shuffle(items)
        if not full and items and rng.random() < 0.3:  # a later item of the same date wins
            items.append(dict(items[0], availability=rng.randint(0, 40)))
        body = {"hotel_code": HOTEL, "items": items}
        status, answer = self.call("PUT", "/ari", body, self.push)
        return self.record(Record("ari", status, answer, body))

    # bookings -----------------------------------------------------------------------------------
    def stay(self, rng: random.Random) -> tuple[int, int]:
        nights = rng.randint(1, 3)
        return rng.randint(0, NIGHTS - nights), nights

    def book(self, rng: random.Random, i: int) -> Record:
        first, nights = self.stay(rng)
        rooms = rng.choice((1, 1, 1, 2))
        stay = {"hotel_code": HOTEL, "room_type_code": rng.choice(BOOKED),
                "rate_plan_code": "BAR", "check_in": self.date(first),
                "check_out": self.date(first + nights), "rooms": rooms}
        body = {**stay, "partner_reference": f"BK-{i}",
                "guests": [{"room_number": r, "first_name": "Ana", "last_name": f"Soak{i}",
                            "is_adult": True} for r in range(1, rooms + 1) for _ in (0, 1)],
                "contact": {"first_name": "Ana", "email": "ana@example.com"},
                "total_amount": f"{RATE * nights * rooms}.00", "currency": "EUR"}
        statuses = []
        if rng.random() < 0.5:
            status, answer = self.call("POST", "/bookings/quote",
                                       {**stay, "occupancy": [{"adults": 2}] * rooms}, self.pull)
            statuses.append(status)
            if status != 200:  # sold out or closed: the booking is not attempted
                return self.record(Record("book_with_quote", status, answer, body, statuses))
            body["quote_token"] = answer["data"]["quote_token"]
        status, answer = self.call("POST", "/bookings", body, self.pull)
        statuses.append(status)
        if landed(status, answer):
            with self.lock:
                self.bookings.append(body["partner_reference"])
        kind = "book_with_quote" if "quote_token" in body else "book"
        return self.record(Record(kind, status, answer, body, statuses))

    def cancel_booking(self, rng: random.Random, i: int) -> Record:
        with self.lock:
            reference = rng.choice(self.bookings) if self.bookings else None
        if reference is None:
            return self.book(rng, i)
        status, answer = self.call("POST", f"/bookings/{reference}/cancel", {}, self.pull)
        return self.record(Record("cancel_booking", status, answer, {"reference": reference}))

    # reservations -------------------------------------------------------------------------------
    def rooms(self, rng: random.Random, with_plan: bool) -> list[dict]:
        lines = []
        for room_type in rng.sample(BOOKED, rng.choice((1, 1, 2))):
            line = {"room_type_code": room_type, "quantity": rng.randint(1, 3), "adults": 2}
            if with_plan:
                line["rate_plan_code"] = "BAR"
            lines.append(line)
        return lines

    def push_reservation(self, rng: random.Random, i: int) -> Record:
        first, nights = self.stay(rng)
        body = {"partner_reference": f"RS-{i}", "hotel_code": HOTEL, "status": "confirmed",
                "check_in": self.date(first), "check_out": self.date(first + nights),
                "rooms": self.rooms(rng, True),
                "guests": [{"room_number": 1, "first_name": "Rui", "is_adult": True}],
                "net_amount": "100.00", "net_currency": "EUR"}
        status, answer = self.call("POST", "/reservations", body, self.push)
        if landed(status, answer):
            with self.lock:
                self.reservations.append(body["partner_reference"])
        return self.record(Record("push_reservation", status, answer, body))

    def cancel_reservation(self, rng: random.Random, i: int) -> Record:
        with self.lock:
            known = rng.choice(self.reservations) if self.reservations else None
        # One in five is a cancel of a reservation never received (an orphan, contract 8).
        reference = known if known and rng.random() < 0.8 else f"RS-ORPHAN-{i}"
        status, answer = self.call("POST", f"/reservations/{reference}/cancel", {}, self.push)
        return self.record(Record("cancel_reservation", status, answer,
                                  {"reference": reference}))

    def modify_reservation(self, rng: random.Random, i: int) -> Record:
        with self.lock:
            reference = rng.choice(self.reservations) if self.reservations else None
        if reference is None:
            return self.push_reservation(rng, i)
        first, nights = self.stay(rng)
        body = {"check_in": self.date(first), "check_out": self.date(first + nights),
                "rooms": self.rooms(rng, False), "net_amount": "120.00", "net_currency": "EUR"}
        status, answer = self.call("POST", f"/reservations/{reference}/modify", body, self.push)
        return self.record(Record("modify_reservation", status, answer,
                                  {"reference": reference, **body}))

    # running ------------------------------------------------------------------------------------
    def run_phase(self, count: int, operation) -> float:
        remaining = [count]
        seeds = [self.rng.randrange(2**32) for _ in range(self.clients)]

        def client(seed: int, n: int) -> None:
            # Client n talks to web instance n modulo their number.
            self.local.port = self.ports[n % len(self.ports)]
            rng = random.Random(seed)
            while True:
                with self.lock:
                    if remaining[0] == 0:
                        break
                    remaining[0] -= 1
                operation(rng, self.next_index())
            conn = getattr(self.local, "conn", None)
            if conn is not None:
                conn.close()

        threads = [threading.Thread(target=client, args=(s, n)) for n, s in enumerate(seeds)]
        started = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.monotonic() - started

    def search(self, rng: random.Random, i: int) -> Record:
        """A read (on the replica in a cluster); its answer only has to be a 200."""
        first, nights = self.stay(rng)
        body = {"hotel_codes": [HOTEL], "check_in": self.date(first),
                "check_out": self.date(first + nights), "rooms": 1,
                "occupancy": [{"adults": 2}]}
        status, answer = self.call("POST", "/availability/search", body, self.pull)
        return self.record(Record("search", status, answer, body))

    def phase_2_operation(self, rng: random.Random, i: int) -> Record:
        kind = rng.choices(list(self.mix), weights=list(self.mix.values()))[0]
        if kind == "ari":
            return self.put_ari(rng, ARI_ONLY)
        return getattr(self, kind)(rng, i)


# --- waiting for the worker and checking ----------------------------------------------------------

def wait_for_batches(database_url: str, timeout_s: float = 600) -> Counter:
    deadline = time.monotonic() + timeout_s
    with psycopg.connect(database_url, autocommit=True) as conn:
        while True:
            statuses = Counter(dict(conn.execute(
                "SELECT status, count(*) FROM ari_batches GROUP BY status").fetchall()))
            if not statuses["queued"] and not statuses["processing"]:
                return statuses
            if time.monotonic() > deadline:
                raise RuntimeError(f"ARI batches not applied within {timeout_s} s: {statuses}")
            time.sleep(0.5)


def ari_expectation(soak: Soak, records: list[Record], database_url: str) -> dict:
    """(room type, date) -> availability set by the last item in acceptance order."""
    accepted = {r.body["data"]["batch_id"]: r.sent for r in records
                if r.kind == "ari" and r.status == 202}
    with psycopg.connect(database_url) as conn:
        seq = dict(conn.execute("SELECT id::text, seq FROM ari_batches WHERE id::text = ANY(%s)",
                                (list(accepted),)).fetchall())
    expected, order = {}, {}
    for batch_id, body in accepted.items():
        for index, item in enumerate(body["items"]):
            key = (item["room_type_code"], item["date"])
            position = (seq[batch_id], index)
            if key not in order or position > order[key]:
                order[key], expected[key] = position, item["availability"]
    return expected


def inventory(database_url: str) -> dict:
    with psycopg.connect(database_url) as conn:
        return {(r[0], r[1].isoformat()): r[2] for r in conn.execute(
            "SELECT rt.code, d.date, d.available FROM room_type_days d "
            "JOIN room_types rt ON rt.id = d.room_type_id")}


def check(soak: Soak, base: dict, database_url: str) -> dict:
    records = soak.records
    violations: list[str] = []
    final = inventory(database_url)
    violations += [f"negative availability {k}: {v}" for k, v in final.items()
                   if v is not None and v < 0]

    # Bookings: what the answers imply, against what the database holds.
    booked = {r.sent["partner_reference"]: r.sent for r in records
              if r.kind.startswith("book") and landed(r.status, r.body)}
    cancelled = {r.sent["reference"] for r in records
                 if r.kind == "cancel_booking" and r.status == 200}
    with psycopg.connect(database_url) as conn:
        confirmed_in_db = {r[0] for r in conn.execute(
            "SELECT partner_reference FROM bookings WHERE status = 'confirmed'")}
        held = conn.execute(
            "SELECT r.partner_reference, rt.code, n.date, n.wanted, n.taken "
            "FROM reservation_nights n JOIN reservations r ON r.id = n.reservation_id "
            "JOIN room_types rt ON rt.id = n.room_type_id WHERE n.released_at IS NULL"
        ).fetchall()
        reservation_status = dict(conn.execute(
            "SELECT partner_reference, status FROM reservations").fetchall())
    confirmed = set(booked) - cancelled
    if confirmed != confirmed_in_db:
        violations.append(f"bookings confirmed: answers imply {len(confirmed)}, database has "
                          f"{len(confirmed_in_db)} (differ: "
                          f"{sorted(confirmed ^ confirmed_in_db)[:10]})")
    expected = defaultdict(int)
    for reference in confirmed:
        body = booked[reference]
        first = dt.date.fromisoformat(body["check_in"])
        for d in range((dt.date.fromisoformat(body["check_out"]) - first).days):
            expected[(body["room_type_code"], (first + dt.timedelta(days=d)).isoformat())] \
                -= body["rooms"]

    # Reservations: what each still holds, from the service's record, held to the answers.
    cancelled_reservations = {r.sent["reference"] for r in records
                              if r.kind == "cancel_reservation" and r.status == 200}
    holding = defaultdict(set)
    for reference, room_type, date, wanted, taken in held:
        expected[(room_type, date.isoformat())] -= taken
        holding[reference].add((room_type, date.isoformat()))
        if reference in cancelled_reservations:
            violations.append(f"reservation {reference} was cancelled but holds {room_type} "
                              f"{date}")
        if not 0 <= taken <= wanted:
            violations.append(f"reservation {reference} took {taken} of {wanted}")
    pushed = {r.sent["partner_reference"] for r in records
              if r.kind == "push_reservation" and landed(r.status, r.body)}
    for reference in sorted(pushed - cancelled_reservations):
        if reservation_status.get(reference) not in ("confirmed", "modified"):
            violations.append(f"reservation {reference} is {reservation_status.get(reference)}")
        if not holding[reference]:
            violations.append(f"reservation {reference} holds nothing")

    checked = 0
    for key in sorted(set(final) | set(base)):
        room_type, date = key
        if room_type in ARI_ONLY:
            want = base.get(key)
        else:
            want = None if base.get(key) is None else base[key] + expected[key]
        if want is None:
            if expected.get(key):
                violations.append(f"{key}: taken from a night without inventory")
            continue
        checked += 1
        if final.get(key) != want:
            violations.append(f"{key}: available {final.get(key)}, expected {want}")
    return {"violations": violations, "nights_checked": checked,
            "bookings_confirmed": len(confirmed), "reservation_nights_held": len(held)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--operations", type=int, default=10000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cluster", action="store_true",
                        help="aim at the running `make cluster` instead of starting a stack")
    args = parser.parse_args(argv)

    cluster_env = None
    if args.cluster:
        services, cluster_env = cluster_services()
        server = worker = None
        ports = [int(url.rsplit(":", 1)[1]) for url in cluster_env["WEB_URLS"].split(",")]
    else:
        services = start_services()
        server = WebServer("app", services.settings())
        worker = WorkerProcess(services.settings())
    pull, push = prepare(services)
    try:
        if server is not None:
            server.start()
            worker.start()
            ports = [server.port]
        soak = Soak(ports, pull, push, args.operations, args.clients, args.seed,
                    mix=CLUSTER_MIX if args.cluster else MIX)

        # Phase 1: one batch covering every room type and night first, then random ones.
        soak.put_ari(random.Random(args.seed), BOOKED + ARI_ONLY, full=True)
        duration = soak.run_phase(soak.phase_1 - 1,
                                  lambda rng, i: soak.put_ari(rng, BOOKED + ARI_ONLY))
        waited = time.monotonic()
        wait_for_batches(services.database_url)
        phase_1_wait = time.monotonic() - waited
        base = ari_expectation(soak, soak.records, services.database_url)
        after_phase_1 = inventory(services.database_url)
        phase_1_violations = [f"phase 1 {k}: available {after_phase_1.get(k)}, expected {v}"
                              for k, v in base.items() if after_phase_1.get(k) != v]

        duration += soak.run_phase(soak.phase_2, soak.phase_2_operation)
        waited = time.monotonic()
        batches = wait_for_batches(services.database_url)
        phase_2_wait = time.monotonic() - waited
        # ARI-only room types: the expectation over both phases' batches.
        final_ari = ari_expectation(soak, soak.records, services.database_url)
        base = {k: (final_ari[k] if k[0] in ARI_ONLY else v) for k, v in base.items()}
        result = check(soak, base, services.database_url)
        once = None
        if cluster_env is not None:
            accepted = {r.body["data"]["batch_id"] for r in soak.records
                        if r.kind == "ari" and r.status == 202}
            once_violations, once = applied_exactly_once(
                accepted, cluster_env["WORKER_LOGS"].split(","))
            result["violations"] += once_violations
    finally:
        if server is not None:
            worker.stop()
            server.stop()
        services.stop()

    records = soak.records
    violations = phase_1_violations + result["violations"]
    errors_5xx = [r for r in records if any(s >= 500 or s == 0 for s in r.statuses)]
    answers = Counter((r.kind, s) for r in records for s in r.statuses)
    kinds = Counter(r.kind for r in records)
    print(f"\nsoak: {len(records)} operations from {args.clients} clients in {duration:.1f} s "
          f"({len(records) / duration:.0f} ops/s), seed {args.seed}")
    print(f"  phase 1 (ARI only): {soak.phase_1} operations, applied {phase_1_wait:.1f} s after "
          f"the last answer; phase 2 (mixed): {soak.phase_2} operations, batches applied "
          f"{phase_2_wait:.1f} s after the last answer")
    print("  operations per kind: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print("  answers per kind and status:")
    for kind in sorted(kinds):
        print(f"    {kind}: " + ", ".join(f"{s} x{n}" for (k, s), n in sorted(answers.items())
                                          if k == kind))
    print(f"  ARI batches: {dict(batches)}")
    if once is not None:
        print(f"  ARI batches applied per worker: {once['applied_by']}; second runs that found "
              f"the batch finished: {once['second_runs_that_did_nothing']}")
    if args.cluster:
        print(f"  web instances: {len(ports)}, clients spread over them")
    print(f"  bookings confirmed at the end: {result['bookings_confirmed']}, reservation nights "
          f"held: {result['reservation_nights_held']}")
    print(f"  nights checked (room type x night): {result['nights_checked']}")
    print(f"  5xx or transport errors: {len(errors_5xx)}")
    print(f"  violations: {len(violations)}")
    for line in violations[:30]:
        print(f"    {line}")
    for r in errors_5xx[:10]:
        print(f"    {r.kind} {r.statuses} {json.dumps(r.body)[:300]}")
    bad_batches = sum(n for s, n in batches.items() if s != "applied")
    if bad_batches:
        print(f"  batches not applied: {bad_batches}")
    ok = not violations and not errors_5xx and not bad_batches
    print("  OK" if ok else "  FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
