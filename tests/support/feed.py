"""Shared by the change-feed tests: waiting until the feed's horizon has passed every
transaction committed so far.

The feed serves a change once every transaction older than it has ended (its horizon is the
xmin of a snapshot, which is server-wide; on Citus, one per node, each node's own). On a server other work shares (test runs of other
databases, a benchmark's COPY), an older transaction may run for a while: the change is then
served late, never lost. A test that asserts what is (or is not) in the feed first waits for
every origin's horizon to pass what was the next transaction id when it was called."""

from __future__ import annotations

import time

SETTLE_DEADLINE_SECONDS = 120


def settle(db) -> None:
    with db.connection() as conn:
        marks = {r["origin"]: int(r["next_xid"]) for r in conn.execute(
            "SELECT origin, next_xid::text FROM change_feed_horizons()")}
    deadline = time.monotonic() + SETTLE_DEADLINE_SECONDS
    while True:
        with db.connection() as conn:
            behind = {r["origin"]: int(r["horizon"]) for r in conn.execute(
                "SELECT origin, horizon::text FROM change_feed_horizons()")
                if int(r["horizon"]) < marks.get(r["origin"], 0)}
        if not behind:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the feed's horizons {behind} stayed below {marks} for "
                                 f"{SETTLE_DEADLINE_SECONDS} s: a transaction is left open")
        time.sleep(0.05)
