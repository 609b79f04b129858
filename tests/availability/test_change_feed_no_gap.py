"""The change feed's no-gap guarantee (contract 11.3), adversarially: writers hold their
transactions open for random times and commit (or roll back) in another order than they
started, while a poller follows the feed. Every committed change must reach the poller, none
before its commit, and no rolled-back one ever.

A cursor that were a plain sequence or a timestamp would skip here: a writer that took its
number early and commits late lands behind a position already served. The writers change two
hotels, which on a Citus cluster live on different workers (asserted), each with its own
transaction ids: the feed's positions and horizons per origin are under test too."""

from __future__ import annotations

import random
import time

import psycopg

from tests.support.envelope import assert_envelope_success

from tests.support.ari_days import set_room_days, stay_dates
from tests.availability.conftest import API, START
from tests.support.feed import OutOfOrderWriters, poll_while_writing, settle

WRITERS = 36
AT_ONCE = 12


HOTELS = [("LIS1", "DBL", "ACME-LIS"), ("OPO1", "TWN", "ACME-OPO")]


def test_every_committed_change_is_seen_whatever_the_commit_order(client, db, issue, catalog,
                                                                   services):
    dates = stay_dates(START, WRITERS)
    for hotel, room, _ in HOTELS:
        set_room_days(db, hotel, room, dates, available=100)
    with db.connection() as conn:
        ids = {hotel: tuple(conn.execute(
            "SELECT r.property_id, r.id FROM room_types r JOIN properties p "
            "ON p.id = r.property_id WHERE p.code = %s AND r.code = %s",
            (hotel, room)).fetchone().values()) for hotel, room, _ in HOTELS}
    pull = {"Authorization": f"Bearer {issue('pull', rate_limit=100_000).token}"}
    settle(db)
    cursor = assert_envelope_success(client.get(f"{API}/availability/changes",
                                                headers=pull))["next_cursor"]
    rng = random.Random(1414)
    # Each writer changes one night of one hotel: the change is known by (hotel code, night).
    plans = [((HOTELS[i % 2], date), rng.uniform(0, 0.6), rng.random() < 0.15,
              rng.uniform(0, 0.3)) for i, date in enumerate(dates)]
    writers = OutOfOrderWriters()

    def write(plan):
        ((hotel, room, code), night), hold, roll_back, stagger = plan
        time.sleep(stagger)
        with psycopg.connect(services.database_url) as conn:
            # The property by its id: a router query on Citus, as every writer of the service
            # (a multi-shard UPDATE would lock out the others and serialize the writers).
            conn.execute("UPDATE room_type_days SET available = available - 1 "
                         "WHERE property_id = %s AND room_type_id = %s AND date = %s",
                         (*ids[hotel], night))
            writers.hold_then_end(conn, (code, night.isoformat()), True, hold, roll_back)

    first_seen: dict[tuple[str, str], float] = {}

    def poll_once(position: str) -> str:
        while True:
            data = assert_envelope_success(client.get(
                f"{API}/availability/changes", query_string={"cursor": position, "limit": 7},
                headers=pull))
            now = time.monotonic()
            for change in data["changes"]:
                assert change["from_date"] == change["to_date"], change
                first_seen.setdefault((change["hotel_code"], change["from_date"]), now)
            position = data["next_cursor"]
            if not data["has_more"]:
                return position

    poll_while_writing(db, cursor, poll_once, write, plans, AT_ONCE)
    committed, committing, rolled_back = writers.committed, writers.committing, writers.rolled_back

    committed_dates = set(committed)
    assert set(first_seen) == committed_dates, (
        "missed: " + str(sorted(committed_dates - set(first_seen)))
        + " rolled back yet seen: " + str(sorted(set(first_seen) - committed_dates)))
    for date in committed:
        assert first_seen[date] >= committing[date], date
    assert rolled_back and len(committed) > WRITERS // 2
    assert {code for code, _ in committed} == {code for _, _, code in HOTELS}
    with db.connection() as conn:
        origins = conn.execute("SELECT count(DISTINCT origin) AS n FROM change_log").fetchone()
        nodes = conn.execute("SELECT count(*) AS n FROM change_feed_horizons() "
                             "WHERE origin > 0").fetchone()
    # On Citus (workers: origins above 0), the two hotels were written on two workers.
    assert origins["n"] == (2 if nodes["n"] >= 2 else 1), origins
    # The writers did commit in another order than they started.
    assert writers.committed_out_of_order()
