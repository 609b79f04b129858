"""Each origin's horizon (change_feed_horizons(), migrations 0039 and 0041), read by every full
catch-up of the read model and every page of the feed: over the connections the session already
holds to the workers, not new ones each time (run_command_on_workers opened one per worker per
call), from one probe a node, not every shard; with a node whose probe is missing, asked of
every worker as before, never left out."""

from __future__ import annotations

import time

import psycopg
from psycopg.rows import dict_row

from connectivity.logtail.tail import horizons_and_next
from connectivity.operator.citus import distribute

CALLS = 20
# Sessions other than the calls' may open meanwhile (Citus's maintenance daemon connects to the
# workers to recover prepared transactions): a few are allowed, one a call is not.
OTHERS = 2


def sessions_opened(watch: list[psycopg.Connection]) -> list[int]:
    """Client sessions each worker has had in the test's database (pg_stat_database.sessions,
    counted from connection start), read over the watchers' own connections."""
    counts = []
    for conn in watch:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        counts.append(conn.execute("SELECT sessions FROM pg_stat_database "
                                   "WHERE datname = current_database()").fetchone()[0])
    return counts


def origins(url: str) -> set[int]:
    """Every origin that must have a horizon: the coordinator's, and each worker's holding
    change_log shards (from the coordinator's catalogue)."""
    with psycopg.connect(url) as conn:
        return {0} | {r[0] for r in conn.execute(
            "SELECT DISTINCT pl.groupid FROM pg_dist_shard sh JOIN pg_dist_placement pl "
            "USING (shardid) WHERE sh.logicalrelid = 'change_log'::regclass "
            "AND pl.groupid <> 0")}


def test_horizons_come_over_the_sessions_own_connections(citus):
    watch = [psycopg.connect(w.url(citus.database), autocommit=True)
             for w in citus.cluster.workers]
    try:
        with psycopg.connect(citus.url, autocommit=True, row_factory=dict_row) as conn:
            horizons, next_xids = horizons_and_next(conn)  # the first opens them
            expected = origins(citus.url)
            assert set(horizons) == set(next_xids) == expected
            before = sessions_opened(watch)
            for _ in range(CALLS):
                horizons, _ = horizons_and_next(conn)
                assert set(horizons) == expected
            after = sessions_opened(watch)
    finally:
        for w in watch:
            w.close()
    # Before 0039 each call opened a session on every worker: CALLS more each.
    assert all(a - b <= OTHERS for a, b in zip(after, before)), (before, after)


def test_a_node_without_a_probe_is_asked_directly_until_distribute_adds_it(citus):
    expected = origins(citus.url)
    with psycopg.connect(citus.url, autocommit=True, row_factory=dict_row) as conn:
        probes = [r["property_id"] for r in conn.execute(
            "SELECT property_id FROM change_log_probes ORDER BY property_id")]
        try:
            conn.execute("DELETE FROM change_log_probes WHERE property_id = %s", (probes[0],))
            assert set(horizons_and_next(conn)[0]) == expected  # every worker asked
        finally:
            distribute(conn, 4)  # puts the probe back (a second run places nothing else)
        assert [r["property_id"] for r in conn.execute(
            "SELECT property_id FROM change_log_probes ORDER BY property_id")] == probes
        assert set(horizons_and_next(conn)[0]) == expected


def probe_shard_reads(citus) -> dict[str, int]:
    """Scans of each shard of change_log_probes so far, over every worker (the shards' own
    statistics, read on a new session: a backend flushes its counts when it ends; the shards
    shown, which Citus hides from other clients' catalogue views)."""
    reads = {}
    for worker in citus.cluster.workers:
        with psycopg.connect(worker.url(citus.database), autocommit=True,
                             options="-c citus.override_table_visibility=off") as conn:
            reads.update(conn.execute(
                "SELECT relname, coalesce(seq_scan, 0) + coalesce(idx_scan, 0) "
                "FROM pg_stat_user_tables WHERE relname LIKE 'change_log_probes%'").fetchall())
    return reads


def test_horizons_read_one_probe_a_node(citus):
    """Migration 0041: a node's snapshot is read from one probe on it, its other shards left
    alone (0039 sent a task to every shard of change_log_probes, 32 by default, a call)."""
    expected = origins(citus.url)
    before = probe_shard_reads(citus)
    with psycopg.connect(citus.url, autocommit=True, row_factory=dict_row) as conn:
        for _ in range(CALLS):
            assert set(horizons_and_next(conn)[0]) == expected
    # The session's cached connections to the workers end with it, flushing their counts.
    time.sleep(1)
    after = probe_shard_reads(citus)
    read = {shard for shard, scans in after.items() if scans - before.get(shard, 0) >= CALLS}
    assert len(after) > len(expected) - 1  # more shards than nodes, or the test shows nothing
    assert len(read) == len(expected) - 1, (read, sorted(after))  # one a worker
    assert all(after[s] - before.get(s, 0) == 0 for s in set(after) - read), (before, after)
