"""The change feed's no-gap guarantee (contract 11.3), adversarially: writers hold their
transactions open for random times and commit (or roll back) in another order than they
started, while a poller follows the feed. Every committed change must reach the poller, none
before its commit, and no rolled-back one ever.

A cursor that were a plain sequence or a timestamp would skip here: a writer that took its
number early and commits late lands behind a position already served."""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import psycopg

from tests.api.helpers import assert_envelope_success

from .ari import set_room_days, stay_dates
from .conftest import API, START
from .feed import settle

WRITERS = 36
AT_ONCE = 12


def test_every_committed_change_is_seen_whatever_the_commit_order(client, db, issue, catalog,
                                                                   services):
    dates = stay_dates(START, WRITERS)
    set_room_days(db, "LIS1", "DBL", dates, available=100)
    pull = {"Authorization": f"Bearer {issue('pull', rate_limit=100_000).token}"}
    settle(db)
    cursor = assert_envelope_success(client.get(f"{API}/availability/changes",
                                                headers=pull))["next_cursor"]
    rng = random.Random(1414)
    plans = [(date, rng.uniform(0, 0.6), rng.random() < 0.15, rng.uniform(0, 0.3))
             for date in dates]
    started, committing, committed, rolled_back, order = {}, {}, set(), set(), []
    lock = threading.Lock()

    def write(plan):
        date, hold, roll_back, stagger = plan
        time.sleep(stagger)
        with psycopg.connect(services.database_url) as conn:
            conn.execute("UPDATE room_type_days SET available = available - 1 "
                         "WHERE date = %s AND room_type_id = (SELECT id FROM room_types "
                         "WHERE code = 'DBL' AND property_id = room_type_days.property_id)",
                         (date,))
            with lock:
                started[date] = len(started)
            time.sleep(hold)  # the transaction stays open, its change invisible
            with lock:
                committing[date] = time.monotonic()
            if roll_back:
                conn.rollback()
                rolled_back.add(date)
            else:
                conn.commit()
                with lock:
                    committed.add(date)
                    order.append(date)

    first_seen: dict[str, float] = {}
    done = threading.Event()

    def poll_once(position: str) -> str:
        while True:
            data = assert_envelope_success(client.get(
                f"{API}/availability/changes", query_string={"cursor": position, "limit": 7},
                headers=pull))
            now = time.monotonic()
            for change in data["changes"]:
                assert change["from_date"] == change["to_date"], change
                first_seen.setdefault(change["from_date"], now)
            position = data["next_cursor"]
            if not data["has_more"]:
                return position

    def poller():
        nonlocal cursor
        while not done.is_set():
            cursor = poll_once(cursor)
            time.sleep(0.005)

    watcher = threading.Thread(target=poller)
    watcher.start()
    try:
        with ThreadPoolExecutor(AT_ONCE) as pool:
            list(pool.map(write, plans))
    finally:
        done.set()
        watcher.join(timeout=120)
    assert not watcher.is_alive()
    settle(db)
    cursor = poll_once(cursor)

    committed_dates = {d.isoformat() for d in committed}
    assert set(first_seen) == committed_dates, (
        "missed: " + str(sorted(committed_dates - set(first_seen)))
        + " rolled back yet seen: " + str(sorted(set(first_seen) - committed_dates)))
    for date in committed:
        assert first_seen[date.isoformat()] >= committing[date], date
    assert rolled_back and len(committed) > WRITERS // 2
    # The writers did commit in another order than they started.
    assert [started[d] for d in order] != sorted(started[d] for d in order)
