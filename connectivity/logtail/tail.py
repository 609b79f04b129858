"""A page of an ordered log with no gap, whatever the commit order of its writers.

Rows of a log carry their writing transaction's id (`xid`) and its origin (the node that gave it:
0 on plain PostgreSQL, the Citus group otherwise), stamped by change_log_stamp() (migration
0012). A page only reads, per origin, below that origin's horizon, pg_snapshot_xmin on that node
(every transaction of it below has finished), in (xid, id) order; the position a reader holds
is, per origin, the row after the last one served, or the horizon once the reader is up to date.
A transaction that started earlier but commits later has an xid at or above the horizon of every
page served before its commit, so it is read by a later page. The cost: a row waits for the
oldest transaction running at its commit to end before it is served (docs/operations.md, "The
change feed").

A log brings its own page statement (called with the bounds of `page_bounds`, returning rows
with `origin`, `xid` and `id`) and its own pruning marks (rows of `origin`, `through_xid`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from connectivity.logtail.positions import START, Position, Positions, later
from connectivity.store.queries import queries
from connectivity.web.errors import ApiError


class CursorExpired(ApiError):
    """410 (contract 11.3, 12.2): pruned past, or not a cursor of ours; start again without one."""
    code = "cursor_expired"


PageReader = Callable[..., list[dict[str, Any]]]  # (conn, **page_bounds, page_size=n) -> rows
MarksReader = Callable[[Any], list[dict[str, Any]]]  # (conn) -> [{origin, through_xid}]


@dataclass(frozen=True)
class TailPage:
    rows: list[dict[str, Any]]  # at most the size asked, oldest first
    has_more: bool
    next: Positions  # where the next page starts


def horizons(conn) -> Positions:
    """Each origin's horizon, as a position: everything of that origin below it is final."""
    return horizons_and_next(conn)[0]


def horizons_and_next(conn) -> tuple[Positions, dict[int, int]]:
    """Each origin's horizon, and its next transaction id (every transaction of that origin
    begun before this read is below it), from one read of every node."""
    read = queries().logtail.log_horizons(conn)
    return ({h["origin"]: Position(int(h["horizon"]), 0) for h in read},
            {h["origin"]: int(h["next_xid"]) for h in read})


def oldest_kept(conn, read_marks: MarksReader) -> Positions:
    """Where a reader of everything kept starts: past each origin's pruning mark."""
    return {m["origin"]: Position(int(m["through_xid"]) + 1, 0) for m in read_marks(conn)}


def latest(conn, read_marks: MarksReader) -> Positions:
    """The current position: everything below each origin's horizon is final. An origin pruned
    but without a node any more: past its mark, or no position would do."""
    return {**oldest_kept(conn, read_marks), **horizons(conn)}


def read_page(conn, after: Positions, size: int, read_rows: PageReader,
              read_marks: MarksReader | None, expired_message: str) -> TailPage:
    """The rows after `after`, at most `size`, and the position after them. `read_marks` None:
    no expiry check (a reader starting at the oldest kept, where a concurrent pruning only
    means fewer rows). Raises CursorExpired when `after` is at or below a pruning mark."""
    now = horizons(conn)
    bounds = page_bounds(after, now)
    rows = [] if bounds is None else read_rows(conn, **bounds, page_size=size)
    if read_marks is not None:
        # Read after the page: a pruning that committed before the page's snapshot is seen.
        for mark in read_marks(conn):
            if after.get(mark["origin"], START).xid <= int(mark["through_xid"]):
                raise CursorExpired(expired_message)
    has_more = len(rows) > size
    rows = rows[:size]
    return TailPage(rows, has_more, next_positions(after, rows, has_more, now))


def page_bounds(after: Positions, now: Positions) -> dict[str, Any] | None:
    """A page statement's parameters: per origin (arrays indexed by origin + 1) the position
    after which and the horizon below which rows are served, and low_xid / high_xid bounding
    the scan of the (xid, id) index. None when no origin has a horizon."""
    if not now:
        return None
    width = max([*after, *now]) + 1
    at = [after.get(origin, START) for origin in range(width)]
    return {"after_xids": [str(p.xid) for p in at], "after_ids": [p.change_id for p in at],
            "horizons": [str(now[o].xid) if o in now else None for o in range(width)],
            "low_xid": str(min(p.xid for p in at)),
            "high_xid": str(max(p.xid for p in now.values()))}


def next_positions(after: Positions, rows: list[dict[str, Any]], has_more: bool,
                   now: Positions) -> Positions:
    positions = dict(after)
    if has_more:
        # What the page served of each origin is the start of that origin's rows.
        for row in rows:
            positions[row["origin"]] = Position(int(row["xid"]), row["id"])
    else:
        # Caught up: everything below each horizon was read. Never behind the position given (a
        # replica's snapshot may lag the primary's that served it).
        for origin, horizon in now.items():
            positions[origin] = later(horizon, after.get(origin, START))
    return positions


def page_json(name: str, items: list[str], has_more: bool, next_cursor: str) -> str:
    """A page's answer `{name: [...], "next_cursor", "has_more"}` as JSON text, its items
    already JSON (written by PostgreSQL: no per-field decoding in Python)."""
    return (f'{{"{name}":[' + ",".join(items) + '],"next_cursor":' + json.dumps(next_cursor)
            + ',"has_more":' + ("true" if has_more else "false") + "}")
