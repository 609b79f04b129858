"""The row a committed claim points to: the one home of reading it.

A reference's claim (`booking_claims`, `reservation_claims`) is written in the same transaction as
the row it claims, so a committed claim proves the row exists. On plain PostgreSQL both become
visible at once. On Citus the claim is sharded by partner and the row by property; when they sit
on different workers they commit with two-phase commit, each worker's COMMIT PREPARED on its own,
and a reader that sees the claim's worker committed may, for a moment, read the row's worker
before its commit shows (docs/operations.md 6.4, "A claim before its row"). A missing row is
then "not visible yet", never "absent": the reader reads again, each statement taking a new
snapshot under READ COMMITTED, for a bounded time.

`claimed_row` returns None only when the row stays invisible for the whole bound; the caller
answers that as a 503 with Retry-After (the claim says the row exists), never as a 404."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")

# How long a reader waits for a claimed row before giving up on this request, and how the
# pauses between reads grow: from a few milliseconds (the usual gap between two workers'
# commits) to at most the cap, so a long gap costs few statements.
WAIT_SECONDS = 2.0
FIRST_PAUSE_SECONDS = 0.002
PAUSE_CAP_SECONDS = 0.1


def claimed_row(read: Callable[[], T | None], *, wait_seconds: float | None = None,
                sleep: Callable[[float], None] = time.sleep,
                clock: Callable[[], float] = time.monotonic) -> T | None:
    """`read()`'s row, read again with growing pauses while it is not visible, for up to
    `wait_seconds` (WAIT_SECONDS unless given); None if it never shows. `read` must run in
    READ COMMITTED (a transaction's default here): under REPEATABLE READ every read would see
    the first one's snapshot. Where the row is visible at once, as on plain PostgreSQL, this
    is one read and no pause."""
    row = read()
    if row is not None:
        return row
    deadline = clock() + (WAIT_SECONDS if wait_seconds is None else wait_seconds)
    pause = FIRST_PAUSE_SECONDS
    while True:
        remaining = deadline - clock()
        if remaining <= 0:
            return None
        sleep(min(pause, remaining))
        row = read()
        if row is not None:
            return row
        pause = min(pause * 2, PAUSE_CAP_SECONDS)
