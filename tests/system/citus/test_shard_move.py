"""A shard moved to the other worker (`citus_move_shard_placement`, what a rebalance does),
with the service running: the change feed neither serves a moved change again nor misses one
written after the move, and bookings go on against the moved rows, each night taken once.

A moved change_log row keeps the origin and transaction id it was written with (the shard's
rows are copied as they are), so a reader's position for that origin still places it; rows
written after the move carry the new node's origin (docs/operations.md 3.3)."""

from __future__ import annotations

import psycopg

from tests.support.signing import bearer
from tests.bookings.conftest import START as BOOKING_START
from tests.bookings.conftest import booking_body
from tests.support.ari_days import set_room_days
from tests.support.feed import settle
from tests.availability.test_change_feed import Poller

from tests.system.citus.conftest import API, codes, node_of

# The colocated shards of a hotel (its day tables, batches, bookings, change_log...) move
# together; block_writes copies them without logical replication.
MOVE = ("SELECT citus_move_shard_placement(get_shard_id_for_distribution_column("
        "'room_type_days', %s), '127.0.0.1', %s, '127.0.0.1', %s, "
        "shard_transfer_mode := 'block_writes')")


def available(conn, property_id: int, night) -> int:
    return conn.execute("SELECT available FROM room_type_days d JOIN room_types r "
                        "ON r.id = d.room_type_id WHERE d.property_id = %s AND r.code = 'DBL' "
                        "AND d.date = %s", (property_id, night)).fetchone()[0]


def test_after_a_shard_move_the_feed_has_no_gap_and_no_repeat_and_bookings_go_on(
        citus, client, db, issue, partners):
    rows_node, _ = partners
    pull = bearer(issue("pull", rate_limit=100_000).token)

    def feed(cursor=None, headers=None, limit=None):
        settle(db)
        query = {k: v for k, v in (("cursor", cursor), ("limit", limit)) if v is not None}
        response = client.get(f"{API}/availability/changes", query_string=query,
                              headers=headers or pull)
        assert response.status_code == 200, response.get_json()
        return response.get_json()["data"]

    # Two readers from the same position: one polls before the move and after, the other
    # only after, so it reads the moved changes from their new node.
    steady, late = Poller(feed), Poller(feed)
    set_room_days(db, "LIS1", "DBL", [BOOKING_START], available=40)
    before = steady.poll()
    assert [c["hotel_code"] for c in before] == ["ACME-LIS"], before

    with psycopg.connect(citus.url, autocommit=True) as conn:
        lis1 = conn.execute("SELECT id FROM properties WHERE code = 'LIS1'").fetchone()[0]
        workers = [port for (port,) in conn.execute(
            "SELECT nodeport FROM pg_dist_node WHERE groupid > 0 ORDER BY nodeport")]
        target = next(port for port in workers if port != rows_node)
        conn.execute(MOVE, (lis1, rows_node, target))
        try:
            assert {node_of(conn, table, lis1) for table in (
                "room_type_days", "change_log", "bookings")} == {target}
            assert steady.poll() == []  # the moved change is not served again
            set_room_days(db, "LIS1", "DBL", [BOOKING_START], available=30)
            key = bearer(issue("pull", partner="p1", rate_limit=100_000).token)
            booked = conn.execute("SELECT count(*) FROM bookings").fetchone()[0]
            for _ in range(2):  # the booking and its replay
                response = client.post(f"{API}/bookings", headers=key,
                                       json=booking_body("MOVED-1", **codes("p1")))
                assert response.status_code in (200, 201), response.get_json()
            assert conn.execute("SELECT count(*) FROM bookings").fetchone()[0] == booked + 1
            assert available(conn, lis1, BOOKING_START) == 29
            after = steady.poll()
            # the ARI write, then the booking's nights
            assert [c["hotel_code"] for c in after] == ["ACME-LIS", "ACME-LIS"], after
            assert sorted(map(repr, late.poll())) == sorted(map(repr, before + after))
        finally:
            conn.execute(MOVE, (lis1, target, rows_node))
            # Citus drops a move's old placements later (deferred cleanup): until then their
            # rows, this test's booking among them, stay on the other worker under its shards'
            # foreign keys, and the next test's emptying (a DELETE) would be refused there.
            conn.execute("CALL citus_cleanup_orphaned_resources()")
        assert node_of(conn, "bookings", lis1) == rows_node
