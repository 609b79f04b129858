"""The restore drill (docs/operations.md 5.6): PostgreSQL is the only state that matters, Redis
can be lost.

Under load (bookings, ARI pushes, pushed reservations), a base backup is taken of a server
that archives its WAL; the load goes on; then PostgreSQL, Redis and the worker are killed
with SIGKILL. A new server is restored from the base backup, the archive and the WAL that
survived on the dead server's disk (the last segment, never archived, holds the last commits),
and the service starts on it with an empty Redis. Every booking and reservation that answered
201 is there once and counted once in inventory; every ARI batch that answered 202 is applied
once, recovered from PostgreSQL by the worker (Redis had lost its job); the change feed has a
row for each. There is no event log yet: the change feed's rows are what is checked."""

from __future__ import annotations

import datetime as dt
import itertools
import json
import signal
import threading
import time
from collections import Counter

import psycopg
from psycopg.rows import dict_row

from app import create_app
from connectivity.auth.credentials import SigningVault
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.operator.keys import issue_key
from connectivity.operator.migrations import upgrade
from connectivity.settings import Settings
from devtools.stack import EmbeddedRedis
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates
from tests.support.signing import bearer, signed_headers

from tests.system.restore.servers import (
    ARCHIVE_TIMEOUT_SECONDS,
    ROOT,
    archiving_primary,
    base_backup,
    kill_postgres,
    kill_redis,
    kill_worker,
    restore,
    start_worker,
    surviving_segments,
    wait_until_writable,
)
from connectivity.web.services import services_of

API = "/api/connectivity/v1"
SECRET_KEY = "restore-secret-key-" + "r" * 32
PREFIX = "restore:"
START = dt.date.today() + dt.timedelta(days=5)
NIGHTS = 10
INITIAL = 1000
# Bookings take nights 0 and 1, reservations nights 3 and 4; ARI batch k sets night 20 + k,
# each night once (within the 2 years ahead the contract accepts), at most one batch every
# ARI_PAUSE_SECONDS: the load ends before the nights run out.
BOOKED, RESERVED, ARI_FIRST = (0, 1), (3, 4), 20
ARI_MAX_BATCHES, ARI_PAUSE_SECONDS = 650, 0.02
# Load before the base backup, and after it until the kill; for the last WORKER_PAUSED_SECONDS
# the worker is stopped (SIGSTOP), so that batches are unfinished at the kill, their jobs in
# Redis alone.
BEFORE_BACKUP_SECONDS, AFTER_BACKUP_SECONDS, WORKER_PAUSED_SECONDS = 1.5, 2.0, 1.0
# Not figures under test: how long the test waits before it fails.
GIVE_UP_SECONDS = 30


def day(offset: int) -> dt.date:
    return START + dt.timedelta(days=offset)


GUESTS = [{"room_number": 1, "first_name": "Ana", "last_name": "Silva", "is_adult": True,
           "nationality": "PT"}]


def booking(reference: str) -> dict:
    return {"partner_reference": reference, "hotel_code": "ACME-LIS",
            "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
            "check_in": day(BOOKED[0]).isoformat(), "check_out": day(BOOKED[1] + 1).isoformat(),
            "rooms": 1, "guests": GUESTS,
            "contact": {"first_name": "Ana", "email": "ana@example.com"},
            "total_amount": "200.00", "currency": "EUR"}


def reservation(reference: str) -> dict:
    return {"partner_reference": reference, "hotel_code": "ACME-LIS", "status": "confirmed",
            "check_in": day(RESERVED[0]).isoformat(),
            "check_out": day(RESERVED[1] + 1).isoformat(),
            "rooms": [{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
                       "quantity": 1, "adults": 2, "nightly_rates": [
                           {"date": day(n).isoformat(), "amount": "100.00"}
                           for n in RESERVED]}],
            "guests": GUESTS, "contact": {"email": "ana@example.com"},
            "sell_amount": "200.00", "sell_currency": "EUR",
            "net_amount": "200.00", "net_currency": "EUR"}


def ari_value(k: int) -> int:
    return k % 40 + 1


class Load:
    """One thread per kind of write, each recording what was acknowledged: booking references
    answered 201, reservation references answered 201, ARI batches answered 202 (id, night,
    value). Every other answer is counted by status."""

    def __init__(self, app, pull: str, push: str):
        self.app, self.pull, self.push = app, pull, push
        self.booked: list[str] = []
        self.reserved: list[str] = []
        self.batches: list[tuple[str, dt.date, int]] = []
        self.statuses: Counter = Counter()
        # When each acknowledgement arrived (time.monotonic()), by reference or batch id.
        self.acknowledged_at: dict[str, float] = {}
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._threads = [threading.Thread(target=self._run, args=(send,), daemon=True)
                         for send in (self._book, self._push_ari, self._push_reservation)]

    def _signed(self, client, method: str, path: str, body: dict):
        data = json.dumps(body).encode()
        return client.open(API + path, method=method, data=data, content_type="application/json",
                           headers=signed_headers(self.push, method, API + path, data))

    def _book(self, client, n: int):
        reference = f"RB-{n}"
        response = client.post(f"{API}/bookings", json=booking(reference),
                               headers=bearer(self.pull))
        if response.status_code == 201:
            self.booked.append(reference)
            self.acknowledged_at[reference] = time.monotonic()
        return "POST /bookings", response

    def _push_ari(self, client, k: int):
        if k >= ARI_MAX_BATCHES:
            time.sleep(0.05)
            return None
        night, value = day(ARI_FIRST + k), ari_value(k)
        response = self._signed(client, "PUT", "/ari", {"hotel_code": "ACME-LIS", "items": [
            {"room_type_code": "ACME-DBL", "date": night.isoformat(), "availability": value}]})
        time.sleep(ARI_PAUSE_SECONDS)
        if response.status_code == 202:
            batch_id = response.get_json()["data"]["batch_id"]
            self.batches.append((batch_id, night, value))
            self.acknowledged_at[batch_id] = time.monotonic()
        return "PUT /ari", response

    def _push_reservation(self, client, n: int):
        reference = f"RS-{n}"
        response = self._signed(client, "POST", "/reservations", reservation(reference))
        if response.status_code == 201:
            self.reserved.append(reference)
            self.acknowledged_at[reference] = time.monotonic()

        return "POST /reservations", response

    def _run(self, send) -> None:
        client = self.app.test_client()
        try:
            for n in itertools.count():
                if self._stop.is_set():
                    return
                sent = send(client, n)
                if sent is not None:
                    with self._lock:
                        self.statuses[(sent[0], sent[1].status_code)] += 1
        except BaseException as exc:  # noqa: BLE001 - reported by stop()
            self.errors.append(exc)

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)
        assert not self.errors, self.errors


def settings_for(database_url: str, redis_url: str) -> Settings:
    # A short pool timeout: once the server is killed, the requests in flight answer 503 soon.
    return Settings(database_url=database_url, redis_url=redis_url, secret_key=SECRET_KEY,
                    db_pool_size=4, db_pool_timeout_seconds=0.5, redis_prefix=PREFIX)


def close_app(application) -> None:
    for name in ("db", "guards"):
        getattr(services_of(application), name).close()


def seed(application) -> tuple[str, str]:
    """The demo catalogue, INITIAL rooms a night on LIS1's DBL, a pull key and a signed push
    key: their tokens."""
    db = services_of(application).db
    db.run(load_catalog, parse_catalog((ROOT / "docs" / "demo-catalog.json").read_text()))
    nights = stay_dates(START, NIGHTS)
    set_room_days(db, "LIS1", "DBL", nights, available=INITIAL)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    vault = SigningVault(SECRET_KEY)
    pull, push = (db.run(issue_key, vault, partner_code="acme", name=f"{preset} key",
                         environment="sandbox", preset=preset, rate_limit=100000).token
                  for preset in ("pull", "push"))
    return pull, push


def test_a_restore_from_base_backup_and_wal_keeps_every_acknowledged_write(drill_root):
    primary, archive = archiving_primary(drill_root)
    restored = worker = None
    redis_servers = []
    apps = []
    try:
        with psycopg.connect(primary.url(), autocommit=True) as admin:
            admin.execute("CREATE DATABASE connectivity")
        upgrade(primary.url("connectivity"))
        redis_servers.append(EmbeddedRedis(drill_root / "redis", persist=False))
        app = create_app(settings_for(primary.url("connectivity"), redis_servers[0].url))
        app.config["TESTING"] = True
        apps.append(app)
        pull, push = seed(app)
        worker = start_worker(primary.url("connectivity"), redis_servers[0].url, PREFIX,
                              SECRET_KEY, drill_root / "worker.log")

        # Load, the base backup under it, more load, then everything killed under load.
        load = Load(app, pull, push)
        load.start()
        time.sleep(BEFORE_BACKUP_SECONDS)
        t0 = time.monotonic()
        base_backup(primary, drill_root / "backup")
        backup_seconds = time.monotonic() - t0
        time.sleep(AFTER_BACKUP_SECONDS - WORKER_PAUSED_SECONDS)
        worker.send_signal(signal.SIGSTOP)
        time.sleep(WORKER_PAUSED_SECONDS)
        kill_worker(worker)
        kill_postgres(primary)
        killed = time.monotonic()
        kill_redis(redis_servers[0])
        load.stop()
        close_app(app)
        apps.remove(app)
        assert load.booked and load.reserved and load.batches, load.statuses
        assert len(load.batches) < ARI_MAX_BATCHES, "the ARI load ran out of nights"
        archived = sorted(p.name for p in archive.iterdir() if not p.name.endswith(".tmp"))
        surviving = surviving_segments(primary)

        # Restore: a new data folder, replayed to the end of the WAL, on a new port.
        restored = restore(drill_root / "backup", archive, surviving, drill_root / "restored",
                           primary.user)
        t0 = time.monotonic()
        restored.start()
        accepting = time.monotonic() - t0
        wait_until_writable(restored)
        writable = time.monotonic() - t0

        # The service on it with an empty Redis; the worker's recovery finds every unfinished
        # batch in PostgreSQL (stranded at once: ARI_STRANDED_AFTER_SECONDS=0).
        redis_servers.append(EmbeddedRedis(drill_root / "redis-new", persist=False))
        url = restored.url("connectivity")
        app = create_app(settings_for(url, redis_servers[1].url))
        app.config["TESTING"] = True
        apps.append(app)
        client = app.test_client()
        ready = client.get("/readyz")
        assert ready.status_code == 200, ready.get_json()
        with psycopg.connect(url, row_factory=dict_row) as conn:
            unfinished = conn.execute(
                "SELECT count(*) AS n FROM ari_batches WHERE status IN ('queued', 'processing')"
            ).fetchone()["n"]
        assert unfinished, "no batch was unfinished at the kill: recovery is not exercised"
        t0 = time.monotonic()
        worker = start_worker(url, redis_servers[1].url, PREFIX, SECRET_KEY,
                              drill_root / "worker-restored.log", "--burst",
                              ARI_STRANDED_AFTER_SECONDS="0")
        exit_code = worker.wait(GIVE_UP_SECONDS)
        recovered_seconds = time.monotonic() - t0
        assert exit_code == 0, (drill_root / "worker-restored.log").read_text()[-3000:]

        with psycopg.connect(url, row_factory=dict_row) as conn:
            figures = check_bookings(conn, load.booked)
            figures |= check_reservations(conn, load.reserved)
            figures |= check_batches(conn, load.batches)
        check_through_the_api(client, pull, push, load)

        # The same restore without the dead server's disk, from the archive alone: an earlier
        # point, consistent (each thread's acknowledged writes up to some answer, none after).
        archive_only = restore(drill_root / "backup", archive, [], drill_root / "archive-only",
                               primary.user)
        try:
            archive_only.start()
            wait_until_writable(archive_only)
            with psycopg.connect(archive_only.url("connectivity"), row_factory=dict_row) as conn:
                lost = lost_from_the_archive_alone(conn, load)
        finally:
            archive_only.close()
    finally:
        for application in apps:
            close_app(application)
        if worker is not None:
            kill_worker(worker)
        for redis_server in redis_servers:
            redis_server.stop()
        for server in (restored, primary):
            if server is not None:
                server.close()

    answered = sum(load.statuses.values())
    others = sorted((k, n) for k, n in load.statuses.items() if k[1] not in (201, 202))
    loaded = BEFORE_BACKUP_SECONDS + backup_seconds + AFTER_BACKUP_SECONDS
    print(f"\n[restore] load {loaded:.1f} s (3 threads, base backup {backup_seconds:.1f} s "
          f"after {BEFORE_BACKUP_SECONDS} s, worker paused the last {WORKER_PAUSED_SECONDS} s): "
          f"{answered} answers, {len(load.booked)} bookings 201, {len(load.reserved)} "
          f"reservations 201, {len(load.batches)} ARI batches 202; others {others}")
    print(f"[restore] SIGKILL to PostgreSQL, Redis and the worker under load; WAL: "
          f"{len(archived)} segments archived, {len(surviving)} in the dead server's pg_wal, "
          f"{len(set(p.name for p in surviving) - set(archived))} of them never archived")
    print(f"[restore] restored server accepting connections {accepting:.2f} s after pg_ctl "
          f"start, writable (recovery ended, new timeline) {writable:.2f} s")
    print(f"[restore] empty Redis: {unfinished} batches unfinished in PostgreSQL, recovered "
          f"and applied by a burst worker in {recovered_seconds:.1f} s (exit {exit_code})")
    print(f"[restore] bookings: {figures['bookings']} in PostgreSQL, every 201 once "
          f"({figures['bookings_unanswered']} committed whose answer the kill cut); "
          f"nights {BOOKED} = {INITIAL} - {figures['bookings']}; reservations: "
          f"{figures['reservations']} ({figures['reservations_unanswered']} unanswered), "
          f"nights {RESERVED} = {INITIAL} - {figures['reservations']}")
    print(f"[restore] ARI: every 202 batch applied once, its value present: attempts "
          f"{dict(sorted(figures['attempts'].items()))}; change feed rows: "
          f"{figures['booking_changes']} for bookings, {figures['reservation_changes']} for "
          f"reservations, one covering each batch's night")
    if lost:
        window = killed - min(load.acknowledged_at[i] for i in lost)
        print(f"[restore] from the archive alone (archive_timeout {ARCHIVE_TIMEOUT_SECONDS} s): "
              f"{len(lost)} acknowledged writes lost, those of the last {window:.2f} s before "
              f"the kill; every earlier one kept")
    else:
        print("[restore] from the archive alone (archive_timeout "
              f"{ARCHIVE_TIMEOUT_SECONDS} s): no acknowledged write lost in this run")


def check_bookings(conn, booked: list[str]) -> dict:
    rows = conn.execute("SELECT partner_reference, status, rooms, check_in, check_out "
                        "FROM bookings").fetchall()
    counts = Counter(r["partner_reference"] for r in rows)
    assert all(counts[reference] == 1 for reference in booked), [
        (reference, counts[reference]) for reference in booked if counts[reference] != 1][:5]
    assert max(counts.values()) == 1
    assert all(r["status"] == "confirmed" and r["rooms"] == 1 for r in rows)
    taken = sum(r["rooms"] for r in rows)
    for night in BOOKED:
        assert available(conn, day(night)) == INITIAL - taken, night
    # One change-feed row per booking: its statement took both nights.
    changes = conn.execute(
        "SELECT count(*) AS n FROM change_log WHERE from_date = %s AND to_date = %s "
        "AND 'availability' = ANY(kinds)", (day(BOOKED[0]), day(BOOKED[1]))).fetchone()["n"]
    assert changes == len(rows)
    return {"bookings": len(rows), "bookings_unanswered": len(rows) - len(booked),
            "booking_changes": changes}


def check_reservations(conn, reserved: list[str]) -> dict:
    rows = conn.execute("SELECT partner_reference, status FROM reservations").fetchall()
    counts = Counter(r["partner_reference"] for r in rows)
    assert all(counts[reference] == 1 for reference in reserved), [
        (reference, counts[reference]) for reference in reserved if counts[reference] != 1][:5]
    assert max(counts.values()) == 1
    nights = conn.execute("SELECT date, sum(taken) AS taken, count(*) AS n "
                          "FROM reservation_nights GROUP BY date").fetchall()
    assert {r["date"]: (r["taken"], r["n"]) for r in nights} == {
        day(n): (len(rows), len(rows)) for n in RESERVED}
    for night in RESERVED:
        assert available(conn, day(night)) == INITIAL - len(rows), night
    changes = conn.execute(
        "SELECT count(*) AS n FROM change_log WHERE from_date = %s AND to_date = %s "
        "AND 'availability' = ANY(kinds)", (day(RESERVED[0]), day(RESERVED[1]))).fetchone()["n"]
    assert changes == len(rows)
    return {"reservations": len(rows), "reservations_unanswered": len(rows) - len(reserved),
            "reservation_changes": changes}


def check_batches(conn, batches: list[tuple[str, dt.date, int]]) -> dict:
    rows = {r["id"]: r for r in conn.execute(
        "SELECT id, status, item_count, applied_count, rejected_count, attempts "
        "FROM ari_batches").fetchall()}
    missing = [b for b, _, _ in batches if b not in rows]
    assert not missing, missing[:5]
    assert all(r["status"] == "applied" for r in rows.values()), [
        r for r in rows.values() if r["status"] != "applied"][:5]
    for batch_id, night, value in batches:
        row = rows[batch_id]
        assert (row["item_count"], row["applied_count"], row["rejected_count"]) == (1, 1, 0), row
        assert available(conn, night) == value, (batch_id, night)
        covered = conn.execute(
            "SELECT count(*) AS n FROM change_log WHERE from_date <= %s AND to_date >= %s "
            "AND 'availability' = ANY(kinds) AND from_date >= %s",
            (night, night, day(ARI_FIRST))).fetchone()["n"]
        assert covered >= 1, (batch_id, night)
    return {"attempts": Counter(r["attempts"] for r in rows.values())}


def lost_from_the_archive_alone(conn, load: Load) -> list[str]:
    """What a restore from the archive alone lacks of what was acknowledged; asserted to be,
    for each thread, the end of its answers (no gap before a kept one)."""
    lost = []
    for acknowledged, statement in (
            (load.booked, "SELECT partner_reference AS id FROM bookings"),
            (load.reserved, "SELECT partner_reference AS id FROM reservations"),
            ([b for b, _, _ in load.batches], "SELECT id FROM ari_batches")):
        kept = {r["id"] for r in conn.execute(statement)}
        prefix = sum(1 for _ in itertools.takewhile(lambda i: i in kept, acknowledged))
        assert not kept & set(acknowledged[prefix:]), "the archive alone restored a gap"
        lost += acknowledged[prefix:]
    return lost


def available(conn, night: dt.date) -> int | None:
    row = conn.execute("SELECT available FROM room_type_days WHERE date = %s",
                       (night,)).fetchone()
    return row and row["available"]


def check_through_the_api(client, pull: str, push: str, load: Load) -> None:
    """The restored service answers for what it acknowledged before the kill (a sample)."""
    for reference in load.booked[-5:]:
        response = client.get(f"{API}/bookings/{reference}", headers=bearer(pull))
        assert response.status_code == 200, response.get_json()
    for batch_id, _, _ in load.batches[-5:]:
        path = f"{API}/ari/batches/{batch_id}"
        response = client.get(path, headers=signed_headers(push, "GET", path, b""))
        assert response.status_code == 200, response.get_json()
        assert response.get_json()["data"]["status"] == "applied"
