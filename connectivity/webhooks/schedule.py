"""When a failed delivery is tried again (contract 12.3, WEBHOOK_RETRY_SCHEDULE).

The schedule's delays add up to fixed times counted from the delivery's first attempt (the
default: 5 s, 5 min 5 s, ... about 27.6 hours). After a failed attempt the next one is the first
of those times still ahead; none left: the delivery is `failed`. Being times rather than counts,
an extra attempt (a replay) or a worker that was down for a while shifts nothing: a replay of a
delivery past its last time that fails again is `failed` again, and a backlog is not worked off
by sending every missed retry at once."""

from __future__ import annotations

import datetime as dt
from itertools import accumulate


def next_attempt_at(schedule: tuple[int, ...], first_attempt_at: dt.datetime,
                    now: dt.datetime) -> dt.datetime | None:
    for offset in accumulate(schedule):
        moment = first_attempt_at + dt.timedelta(seconds=offset)
        if moment > now:
            return moment
    return None
