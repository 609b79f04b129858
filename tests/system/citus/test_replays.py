"""A reference's claim proves its row exists: concurrent replays, reads and cancels that find the
claim never answer 404, and every round ends with one booking or reservation, changed once.

On Citus the claim lives on the partner's shard and the row on the property's, committed
together with two-phase commit: for a moment after the claim's worker commits, the row's worker
may not show it yet (docs/operations.md 6.4, "A claim before its row"). The rounds use partners
whose claims live on the other worker than LIS1's rows, so every round commits across workers.

Runs on plain PostgreSQL in `make test` and on the cluster in .ci/run's Citus pass; on the
cluster the rounds are more (PCS_TEST_REPLAY_ROUNDS overrides both counts, for a longer stress
run by hand).

A reader's answer is judged against what a probe saw just before it: each watcher thread reads
`booking_claims` on a connection of its own, then sends its request. A request sent after the
probe saw the claim must find the booking (200); before, 404 is a right answer and the watcher
tries again."""

from __future__ import annotations

import dataclasses
import os
import threading
from collections import Counter

import psycopg
import pytest

from app import create_app
from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.bookings.conftest import START, booking_body
from tests.reservations.conftest import reservation
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates
from tests.support.oncitus import on_citus
from tests.support.signing import bearer
from tests.system.citus.conftest import API, PARTNERS, codes, node_of, partners_catalog
from connectivity.web.services import services_of

CREATES, GETS, CANCELS = 4, 3, 3
PUSHES, RES_CANCELS, MODIFIES = 4, 3, 3
THREADS = max(CREATES + GETS + CANCELS, PUSHES + RES_CANCELS + MODIFIES)
START_ROOMS = 50
# A watcher gives up after this many tries without seeing the claim (a round that never
# commits its booking is reported, not waited on forever).
WATCH_TRIES = 5000


def rounds(on_cluster: int, plain: int) -> int:
    override = os.environ.get("PCS_TEST_REPLAY_ROUNDS")
    if override:
        return int(override)
    return on_cluster if on_citus() else plain


@pytest.fixture(scope="module")
def wide_app(settings):
    """A pool as large as the crowd: the requests overlap in PostgreSQL, not in the pool."""
    application = create_app(dataclasses.replace(settings, db_pool_size=THREADS + 2))
    application.config["TESTING"] = True
    yield application
    services_of(application).db.close()
    services_of(application).guards.close()
    services_of(application).reads.close()



@pytest.fixture
def crossing(services, db, catalog):
    """The partners a round uses, with their ids: on Citus those whose claims live on the other
    worker than LIS1's rows (two-phase commit every time), on plain PostgreSQL the first."""
    db.run(load_catalog, parse_catalog(partners_catalog()))
    nights = stay_dates(START, 4)
    set_room_days(db, "LIS1", "DBL", nights, available=START_ROOMS)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00", single_rate="80.00",
                  extra_adult_rate="30.00", extra_child_rate="15.00")
    with psycopg.connect(services.direct_url) as conn:
        ids = dict(conn.execute("SELECT code, id FROM partners WHERE code = ANY(%s)",
                                (PARTNERS,)).fetchall())
        if services.citus is None:
            return {PARTNERS[0]: ids[PARTNERS[0]]}
        lis1 = conn.execute("SELECT id FROM properties WHERE code = 'LIS1'").fetchone()[0]
        rows_node = node_of(conn, "bookings", lis1)
        across = {code: ids[code] for code in PARTNERS
                  if node_of(conn, "booking_claims", ids[code]) != rows_node
                  and node_of(conn, "reservation_claims", ids[code]) != rows_node}
    assert across, "every claim beside LIS1's rows: add partners"
    return across


def dbl_available(services) -> list[int]:
    with psycopg.connect(services.direct_url) as conn:
        return [r[0] for r in conn.execute(
            "SELECT d.available FROM room_type_days d JOIN room_types rt ON rt.id = "
            "d.room_type_id JOIN properties p ON p.id = d.property_id WHERE p.code = 'LIS1' "
            "AND rt.code = 'DBL' AND d.date >= %s ORDER BY d.date", (START,))]


def together(calls) -> tuple[list, list[str]]:
    """Each call on its own thread, released at once: their results in order (None for a call
    that raised), and what raised (counted as wrong answers, not lost in a thread)."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)
    raised: list[str] = []

    def run(i, call):
        barrier.wait()
        try:
            results[i] = call()
        except BaseException as exc:
            raised.append(repr(exc))

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return results, raised


class Probes:
    """One autocommit connection per watcher, reused across rounds: whether a reference's claim
    is committed, as a reader on another connection sees it."""

    def __init__(self, url: str, count: int):
        self.connections = [psycopg.connect(url, autocommit=True) for _ in range(count)]

    def claimed(self, i: int, table: str, partner_id: int, reference: str) -> bool:
        return self.connections[i].execute(
            f"SELECT 1 FROM {table} WHERE partner_id = %s AND environment = 'sandbox' "
            "AND partner_reference = %s", (partner_id, reference)).fetchone() is not None

    def close(self):
        for conn in self.connections:
            conn.close()


@pytest.fixture
def probes(services):
    opened = Probes(services.direct_url, THREADS)
    yield opened
    opened.close()


def answer(response) -> tuple[int, dict]:
    return response.status_code, response.get_json()


def watch(app, probes, slot, table, partner_id, reference, send):
    """Send until a request goes out after the claim was seen (or one finds the row before):
    ("after" | "before", status, body)."""
    client = app.test_client()
    for _ in range(WATCH_TRIES):
        seen = probes.claimed(slot, table, partner_id, reference)
        status, body = answer(send(client))
        if seen:
            return "after", status, body
        if status != 404:
            return "before", status, body
    return "never", None, None


def report(what: str, services, count: int, wrong: list) -> None:
    """One line for the run's output (pytest -s): the stress's size and what went wrong."""
    print(f"\n{what} replay rounds on {'Citus' if services.citus else 'PostgreSQL'}: {count}, "
          f"wrong answers: {len(wrong)} in {len({w[0] for w in wrong})} rounds")


def error_code(body) -> str | None:
    return None if body is None or body.get("success") else body["error"]["code"]


def test_booking_replays_reads_and_cancels_never_miss_a_claimed_booking(
        wide_app, services, issue, crossing, probes):
    count = rounds(on_cluster=50, plain=25)
    keys = {code: bearer(issue("pull", partner=code, rate_limit=100000).token)
            for code in crossing}
    start = dbl_available(services)
    wrong: list = []
    for r in range(count):
        code = list(crossing)[r % len(crossing)]
        partner_id, key = crossing[code], keys[code]
        reference = f"RPL-{r}"
        body = booking_body(reference, **codes(code))

        def create():
            return answer(wide_app.test_client().post(f"{API}/bookings", json=body, headers=key))

        def reader(slot, send):
            return lambda: watch(wide_app, probes, slot, "booking_claims", partner_id,
                                 reference, send)

        get = lambda c: c.get(f"{API}/bookings/{reference}", headers=key)  # noqa: E731
        cancel = lambda c: c.post(f"{API}/bookings/{reference}/cancel", json={},  # noqa: E731
                                  headers=key)
        calls = ([create] * CREATES + [reader(i, get) for i in range(GETS)]
                 + [reader(GETS + i, cancel) for i in range(CANCELS)])
        results, raised = together(calls)
        wrong += [(r, "raised", what) for what in raised]
        creates = [c for c in results[:CREATES] if c is not None]
        gets = [c for c in results[CREATES:CREATES + GETS] if c is not None]
        cancels = [c for c in results[CREATES + GETS:] if c is not None]
        wrong += [(r, "create", s, error_code(b)) for s, b in creates if s not in (200, 201)]
        if Counter(s for s, _ in creates)[201] != 1:
            wrong.append((r, "created other than once", [s for s, _ in creates]))
        for kind, answers in (("get", gets), ("cancel", cancels)):
            wrong += [(r, kind, when, s, error_code(b)) for when, s, b in answers
                      if when == "never" or s != 200]
        fresh = [b for _, s, b in cancels if s == 200 and not b["data"]["idempotent_replay"]]
        if len(fresh) != 1:
            wrong.append((r, "cancelled by", len(fresh)))
    report("booking", services, count, wrong)
    assert wrong == [], wrong
    # Every round's booking was cancelled once: every night back where it started.
    assert dbl_available(services) == start


def test_reservation_pushes_cancels_and_modifies_find_their_claimed_row(
        wide_app, services, issue, crossing, db):
    count = rounds(on_cluster=25, plain=15)
    keys = {code: bearer(issue("push", partner=code, signed=False).token) for code in crossing}
    start = dbl_available(services)
    wrong: list = []
    for r in range(count):
        code = list(crossing)[r % len(crossing)]
        key = keys[code]
        reference = f"RSV-{r}"
        pushed = reservation(reference, hotel_code=f"{code.upper()}-LIS")
        for room in pushed["rooms"]:
            room.update(room_type_code=f"{code.upper()}-DBL",
                        rate_plan_code=f"{code.upper()}-BAR")
        modification = {"check_in": pushed["check_in"], "check_out": pushed["check_out"],
                        "rooms": [{"room_type_code": f"{code.upper()}-DBL", "quantity": 2,
                                   "adults": 2}],
                        "net_amount": "340.00", "net_currency": "EUR"}

        def send(path, payload):
            return lambda: answer(wide_app.test_client().post(API + path, json=payload,
                                                              headers=key))

        calls = ([send("/reservations", pushed)] * PUSHES
                 + [send(f"/reservations/{reference}/cancel", {})] * RES_CANCELS
                 + [send(f"/reservations/{reference}/modify", modification)] * MODIFIES)
        results, raised = together(calls)
        wrong += [(r, "raised", what) for what in raised]
        pushes = [c for c in results[:PUSHES] if c is not None]
        cancels = [c for c in results[PUSHES:PUSHES + RES_CANCELS] if c is not None]
        modifies = [c for c in results[PUSHES + RES_CANCELS:] if c is not None]
        wrong += [(r, "push", s, error_code(b)) for s, b in pushes if s not in (200, 201)]
        if Counter(s for s, _ in pushes)[201] != 1:
            wrong.append((r, "pushed other than once", [s for s, _ in pushes]))
        for kind, answers in (("cancel", cancels), ("modify", modifies)):
            wrong += [(r, kind, s, error_code(b)) for s, b in answers if s != 200]
            if sorted(b["data"]["idempotent_replay"] for s, b in answers if s == 200) != [
                    False] + [True] * (len(answers) - 1):
                wrong.append((r, f"{kind} applied other than once"))
    final = db.run(lambda conn: conn.execute(
        "SELECT status, count(*) AS n, bool_and(received_at IS NOT NULL) AS received "
        "FROM reservations GROUP BY status").fetchall())
    report("reservation", services, count, wrong)
    assert wrong == [], wrong
    assert final == [{"status": "cancelled", "n": count, "received": True}], final
    # Every reservation ended cancelled: whatever it took came back.
    assert dbl_available(services) == start
