"""The event log's no-gap guarantee (contract 12.2, as 11.3), adversarially: writers hold their
transactions open for random times and commit (or roll back) in another order than they started,
while a reader polls GET /events. Every committed event must reach the reader, none before its
commit, none rolled back, each with the event_id it was written with. The writers write events
of two hotels, which on a Citus cluster live on different workers: positions per origin are
under test too."""

from __future__ import annotations

import random
import time

import psycopg
from psycopg.rows import dict_row

from connectivity.events import log
from tests.events.conftest import API
from tests.support.envelope import assert_envelope_success
from tests.support.feed import OutOfOrderWriters, poll_while_writing, settle

WRITERS = 36
AT_ONCE = 12


def test_every_committed_event_is_read_whatever_the_commit_order(client, db, issue, catalog,
                                                                 services):
    with db.connection() as conn:
        hotels = conn.execute(
            "SELECT pp.property_id, pp.partner_id, pp.hotel_code FROM partner_properties pp "
            "JOIN partners pa ON pa.id = pp.partner_id WHERE pa.code = 'acme' "
            "ORDER BY pp.hotel_code").fetchall()
    assert len(hotels) == 2
    key = issue("none", extra_scopes=("content.read",), rate_limit=100_000)
    reader = {"Authorization": f"Bearer {key.token}"}
    settle(db)
    cursor = assert_envelope_success(client.get(f"{API}/events?start=latest",
                                                headers=reader))["next_cursor"]
    rng = random.Random(2412)
    plans = [(i, hotels[i % 2], rng.uniform(0, 0.6), rng.random() < 0.15, rng.uniform(0, 0.3))
             for i in range(WRITERS)]
    writers = OutOfOrderWriters()

    def write(plan):
        number, hotel, hold, roll_back, stagger = plan
        time.sleep(stagger)
        with psycopg.connect(services.database_url, row_factory=dict_row) as conn:
            event_id = log.record(conn, property_id=hotel["property_id"],
                                  partner_id=hotel["partner_id"], environment="sandbox",
                                  type="mapping.paused",
                                  data={"hotel_code": f"{hotel['hotel_code']}#{number}"})
            writers.hold_then_end(conn, number, event_id, hold, roll_back)

    seen: dict[int, tuple[float, str]] = {}

    def poll_once(position: str) -> str:
        while True:
            data = assert_envelope_success(client.get(
                f"{API}/events", query_string={"cursor": position, "limit": 7},
                headers=reader))
            now = time.monotonic()
            for event in data["events"]:
                number = int(event["data"]["hotel_code"].split("#")[1])
                seen.setdefault(number, (now, event["event_id"]))
            position = data["next_cursor"]
            if not data["has_more"]:
                return position

    poll_while_writing(db, cursor, poll_once, write, plans, AT_ONCE)
    committed = writers.committed
    assert set(seen) == set(committed), (
        f"missed: {sorted(set(committed) - set(seen))}, "
        f"rolled back yet seen: {sorted(set(seen) - set(committed))}")
    for number, event_id in committed.items():
        assert seen[number][0] >= writers.committing[number], number
        assert seen[number][1] == event_id
    assert writers.rolled_back and len(committed) > WRITERS // 2
    assert writers.committed_out_of_order()
    with db.connection() as conn:
        origins = conn.execute("SELECT count(DISTINCT origin) AS n FROM event_log").fetchone()
        nodes = conn.execute("SELECT count(*) AS n FROM change_feed_horizons() "
                             "WHERE origin > 0").fetchone()
    # On Citus (workers: origins above 0), the two hotels' events were written on two workers.
    assert origins["n"] == (2 if nodes["n"] >= 2 else 1), origins
