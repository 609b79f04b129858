"""store/claimed.py: a claimed row not visible yet is read again, with growing pauses, for a
bounded time. A clock of the test's own: the pauses are counted, never waited."""

from __future__ import annotations

from connectivity.store.claimed import (FIRST_PAUSE_SECONDS, PAUSE_CAP_SECONDS, WAIT_SECONDS,
                                        claimed_row)


class FakeTime:
    def __init__(self):
        self.now = 0.0
        self.pauses: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


def reads(*answers):
    """A read giving `answers` in turn, counting its calls."""
    left = list(answers)
    calls = []

    def read():
        calls.append(1)
        return left.pop(0)
    return read, calls


def test_a_visible_row_is_one_read_and_no_pause():
    time = FakeTime()
    read, calls = reads({"id": 1})
    assert claimed_row(read, sleep=time.sleep, clock=time.clock) == {"id": 1}
    assert len(calls) == 1 and time.pauses == []


def test_a_row_that_shows_late_is_found_after_growing_pauses():
    time = FakeTime()
    read, calls = reads(None, None, None, {"id": 7})
    assert claimed_row(read, sleep=time.sleep, clock=time.clock) == {"id": 7}
    assert len(calls) == 4
    assert time.pauses == [FIRST_PAUSE_SECONDS, 2 * FIRST_PAUSE_SECONDS, 4 * FIRST_PAUSE_SECONDS]


def test_a_row_never_seen_gives_none_at_the_bound_with_capped_pauses():
    time = FakeTime()
    read, calls = reads(*[None] * 1000)
    assert claimed_row(read, sleep=time.sleep, clock=time.clock) is None
    assert abs(time.now - WAIT_SECONDS) < 1e-9  # waited the bound, not beyond it
    assert max(time.pauses) == PAUSE_CAP_SECONDS
    assert len(calls) == len(time.pauses) + 1 < 40  # a long wait costs few statements


def test_the_bound_can_be_given():
    time = FakeTime()
    read, _ = reads(*[None] * 100)
    assert claimed_row(read, wait_seconds=0.01, sleep=time.sleep, clock=time.clock) is None
    assert abs(time.now - 0.01) < 1e-9
