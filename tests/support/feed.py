"""Shared by the change-feed tests: waiting until the feed's horizon has passed every
transaction committed so far.

The feed serves a change once every transaction older than it has ended (its horizon is the
xmin of a snapshot, which is server-wide; on Citus, one per node, each node's own). On a server other work shares (test runs of other
databases, a benchmark's COPY), an older transaction may run for a while: the change is then
served late, never lost. A test that asserts what is (or is not) in the feed first waits for
every origin's horizon to pass what was the next transaction id when it was called."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

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


class OutOfOrderWriters:
    """Writers that hold their transactions open for a while and commit (or roll back) in
    another order than they started, as the no-gap tests need them; what each did, by key."""

    def __init__(self):
        self.started: dict = {}  # key -> its rank among the writes started
        self.committing: dict = {}  # key -> monotonic time just before its commit
        self.committed: dict = {}  # key -> the value its write returned
        self.rolled_back: set = set()
        self.order: list = []  # keys in commit order
        self._lock = threading.Lock()

    def hold_then_end(self, conn, key, value, hold: float, roll_back: bool) -> None:
        """After the write on `conn` (not committed yet): hold, then commit or roll back."""
        with self._lock:
            self.started[key] = len(self.started)
        time.sleep(hold)  # the transaction stays open, its write invisible
        with self._lock:
            self.committing[key] = time.monotonic()
        if roll_back:
            conn.rollback()
            self.rolled_back.add(key)
            return
        conn.commit()
        with self._lock:
            self.committed[key] = value
            self.order.append(key)

    def committed_out_of_order(self) -> bool:
        return [self.started[k] for k in self.order] != sorted(self.started[k]
                                                               for k in self.order)


def poll_while_writing(db, cursor: str, poll_once, write, plans, at_once: int) -> str:
    """Run `write(plan)` for every plan, `at_once` at a time, while a thread polls
    (`cursor = poll_once(cursor)`) until they are done; then polls once more after every
    transaction has ended. The last cursor."""
    done = threading.Event()
    state = {"cursor": cursor}

    def poller():
        while not done.is_set():
            state["cursor"] = poll_once(state["cursor"])
            time.sleep(0.005)

    watcher = threading.Thread(target=poller)
    watcher.start()
    try:
        with ThreadPoolExecutor(at_once) as pool:
            list(pool.map(write, plans))
    finally:
        done.set()
        watcher.join(timeout=120)
    assert not watcher.is_alive()
    settle(db)
    return poll_once(state["cursor"])
