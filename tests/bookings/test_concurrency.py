"""Bookings under concurrency, through the real app: every request on its own thread, its own
test client and its own pooled PostgreSQL connection, all released together by a barrier.
Correctness must come from PostgreSQL (the claim, the conditional decrement), so these fail if
either is replaced by a read-then-write in Python."""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import threading
from collections import Counter

import psycopg
import pytest

from app import create_app
from tests.support import lockwaits
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

from tests.bookings.conftest import API, START, available, booking_body, booking_count
from connectivity.web.services import services_of

THREADS = 20


@pytest.fixture(scope="module")
def wide_app(settings):
    """The app with a pool as large as the crowd, so the requests really overlap in PostgreSQL
    instead of queueing for a connection."""
    application = create_app(dataclasses.replace(settings, db_pool_size=THREADS + 2))
    application.config["TESTING"] = True
    yield application
    services_of(application).db.close()
    services_of(application).guards.close()


def together(app, calls):
    """Run each call(client) on its own thread, all released at once; their responses, in order."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def worker(i, call):
        client = app.test_client()
        barrier.wait()
        try:
            response = call(client)
            results[i] = (response.status_code, response.get_json())
        except BaseException as exc:  # surfaced by the assertion below, not lost in a thread
            results[i] = (None, repr(exc))

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(r is not None and r[0] is not None for r in results), results
    return results


def post_booking(headers, body):
    return lambda client: client.post(f"{API}/bookings", json=body, headers=headers)


def codes(results) -> Counter:
    return Counter((status, None if body["success"] else body["error"]["code"])
                   for status, body in results)


def test_last_room_race_has_exactly_one_winner(wide_app, db, pull, catalog):
    rounds = 8
    nights = stay_dates(START, 2 * rounds)
    set_room_days(db, "LIS1", "DBL", nights, available=1)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    for r in range(rounds):
        calls = [post_booking(pull, booking_body(f"RACE-{r}-{i}", offset=2 * r))
                 for i in range(THREADS)]
        results = together(wide_app, calls)
        assert codes(results) == {(201, None): 1, (409, "sold_out"): THREADS - 1}, results
        assert available(db)[2 * r: 2 * r + 2] == [0, 0]
    assert booking_count(db) == rounds


def test_concurrent_replays_make_one_booking_and_one_decrement(wide_app, db, pull, lisbon):
    body = booking_body("SAME-REF")
    results = together(wide_app, [post_booking(pull, body)] * THREADS)
    assert codes(results) == {(201, None): 1, (200, None): THREADS - 1}, results
    bookings = {body["data"]["booking"]["confirmation_number"] for _, body in results}
    assert len(bookings) == 1
    assert all(body["data"]["idempotent_replay"] is (status == 200)
               and body["data"]["request_differs"] is False for status, body in results)
    assert booking_count(db) == 1
    assert available(db) == [4, 4, 5, 5]


def test_overlapping_stays_in_opposite_date_orders(wide_app, db, pull, catalog):
    """Stays growing forwards and backwards over the same nights, several rooms each: no
    error reaches a client, and every night ends at its start minus what the winners took."""
    span, start_rooms = 8, 6
    nights = stay_dates(START, span)
    set_room_days(db, "LIS1", "DBL", nights, available=start_rooms)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    rng = random.Random(5)
    for r in range(4):
        stays = []
        for i in range(THREADS):
            length = rng.randint(2, span)
            offset = 0 if i % 2 else span - length  # forwards from the first night, backwards from the last
            stays.append((offset, length, rng.randint(1, 3)))
        bodies = [booking_body(f"OVL-{r}-{i}", offset=o, nights=n, rooms=k, total=100 * n * k)
                  for i, (o, n, k) in enumerate(stays)]
        before = available(db)
        results = together(wide_app, [post_booking(pull, b) for b in bodies])
        assert set(codes(results)) <= {(201, None), (409, "sold_out")}, results
        expected = list(before)
        for (offset, length, rooms), (status, _) in zip(stays, results):
            if status == 201:
                for night in range(offset, offset + length):
                    expected[night] -= rooms
        assert available(db) == expected
        assert min(expected) >= 0
        # free everything for the next round, through the API
        for body, (status, _) in zip(bodies, results):
            if status == 201:
                with wide_app.test_client() as client:
                    response = client.post(f"{API}/bookings/{body['partner_reference']}/cancel",
                                           json={}, headers=pull)
                    assert response.status_code == 200, response.json
        assert available(db) == [start_rooms] * span


def test_concurrent_cancels_release_the_rooms_once(wide_app, db, pull, lisbon, client):
    assert client.post(f"{API}/bookings", json=booking_body("CXL", rooms=2, total=400),
                       headers=pull).status_code == 201
    assert available(db) == [3, 3, 5, 5]
    cancel = lambda c: c.post(f"{API}/bookings/CXL/cancel", json={}, headers=pull)  # noqa: E731
    results = together(wide_app, [cancel] * THREADS)
    assert [s for s, _ in results] == [200] * THREADS, results
    assert sorted(b["data"]["idempotent_replay"] for _, b in results) == [False] + [True] * (THREADS - 1)
    assert available(db) == [5, 5, 5, 5]


def test_a_deadlock_is_retried_and_never_reaches_the_client(client, db, pull, lisbon, settings):
    """Another transaction takes the second night, the booking takes the first and waits for
    the second, the other then asks for the first: a deadlock, which the database breaks by
    aborting the booking (it waited first; on Citus, where both wait on the worker holding
    LIS1's shard, the worker or Citus's own detector aborts the younger transaction, the
    booking again). The booking is run again and the partner sees a 201.

    That it was a deadlock is shown by the locks, not by pg_stat_database's count: Citus's
    detector breaks a cycle without counting it there. The booking is seen waiting while it
    holds the first night, so the other's request for that night closes a cycle; the other's
    statement then returns, so the cycle was broken on the booking's side."""
    url = settings.database_url
    with psycopg.connect(url) as other, psycopg.connect(url) as prober:
        [lis1] = other.execute("SELECT id FROM properties WHERE code = 'LIS1'").fetchone()
        # The hotel named: on Citus each of these is a router statement on LIS1's shard.
        night = ("WHERE property_id = %s AND date = %s AND room_type_id = "
                 "(SELECT id FROM room_types WHERE code = 'DBL' AND property_id = %s)")
        lock_night = "UPDATE room_type_days SET available = available " + night
        other.execute(lock_night, (lis1, START + dt.timedelta(days=1), lis1))
        outcome = {}
        booking = threading.Thread(target=lambda: outcome.update(response=client.post(
            f"{API}/bookings", json=booking_body(), headers=pull)))
        booking.start()
        for _ in range(500):
            if lockwaits.waiting(url, query_has="WITH locked AS MATERIALIZED"):
                break
            threading.Event().wait(0.01)
        else:
            raise AssertionError("the booking never waited for the second night")
        with pytest.raises(psycopg.errors.LockNotAvailable):  # the booking holds the first
            prober.execute("SELECT 1 FROM room_type_days " + night + " FOR UPDATE NOWAIT",
                           (lis1, START, lis1))
        prober.rollback()
        other.execute(lock_night, (lis1, START, lis1))  # returns once the deadlock is broken
        other.commit()
        booking.join(30)
        assert outcome["response"].status_code == 201, outcome["response"].json
    assert available(db) == [4, 4, 5, 5]
    assert booking_count(db) == 1
