"""Shared by the change-feed tests: waiting until the feed's horizon has passed every
transaction committed so far.

The feed serves a change once every transaction older than it has ended (its horizon is the
xmin of a snapshot, which is cluster-wide). On a server other work shares (test runs of other
databases, a benchmark's COPY), an older transaction may run for a while: the change is then
served late, never lost. A test that asserts what is (or is not) in the feed first waits for
the horizon to pass a transaction of its own, committed after its writes."""

from __future__ import annotations

import time

SETTLE_DEADLINE_SECONDS = 120


def settle(db) -> None:
    with db.connection() as conn:
        marker = int(conn.execute("SELECT pg_current_xact_id()::text AS x").fetchone()["x"])
    deadline = time.monotonic() + SETTLE_DEADLINE_SECONDS
    while True:
        with db.connection() as conn:
            horizon = int(conn.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text "
                                       "AS h").fetchone()["h"])
        if horizon > marker:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the feed's horizon stayed at or below {marker} for "
                                 f"{SETTLE_DEADLINE_SECONDS} s: a transaction is left open")
        time.sleep(0.05)
