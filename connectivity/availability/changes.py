"""GET /availability/changes (contract 11.3): what changed, for a reseller keeping a cache.

No gap, whatever the commit order: change_log rows carry their writing transaction's id and
its origin (the node that gave it), and a page only reads below each origin's horizon,
pg_snapshot_xmin on that node (every transaction of it below has finished), in (xid, id)
order; the cursor holds, per origin, the position after the last row served, or the horizon
once the caller is up to date. A transaction that started earlier but commits later
has an xid at or above the horizon of every page served before its commit, so it is read by a
later page. The cost: a change waits for the oldest transaction running at its commit to end
before it is served (docs/operations.md, "The change feed").

`read_changes` takes the database it reads from: the feed may be served by a replica."""

from __future__ import annotations

import json
from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.store.queries import queries
from connectivity.store.replica import Reads
from connectivity.availability.feed_cursor import EXPIRED, CursorExpired, CursorSigner, Position, Positions

DEFAULT_PAGE_SIZE = 500
MAX_PAGE_SIZE = 1000


def read_changes(db: Reads, signer: CursorSigner, caller: Caller,
                 request: dict[str, Any]) -> str:
    """The answer's `data`, as JSON text (each change written by PostgreSQL)."""
    cursor = request.get("cursor")
    after = (None if cursor is None
             else signer.load(cursor, caller.partner_id, caller.environment))
    with db.connection() as conn:
        origins = queries().availability.feed_horizons(conn)
        horizons = {o["origin"]: Position(int(o["horizon"]), 0) for o in origins}
        if after is None:
            # Where a new reader starts: everything below each origin's horizon is final. An
            # origin pruned but without a node any more: past its mark, or no cursor would do.
            start = {m["origin"]: Position(int(m["through_xid"]) + 1, 0)
                     for m in queries().availability.feed_pruned(conn)}
            return _page([], False, signer.dump(caller.partner_id, caller.environment,
                                                {**start, **horizons}))
        size = request.get("limit", DEFAULT_PAGE_SIZE)
        rows = _feed_page(conn, caller, after, horizons, size)
        # Read after the page: a pruning that committed before the page's snapshot is seen.
        for mark in queries().availability.feed_pruned(conn):
            if after.get(mark["origin"], START).xid <= int(mark["through_xid"]):
                raise CursorExpired(EXPIRED)
    has_more = len(rows) > size
    rows = rows[:size]
    positions = dict(after)
    if has_more:
        # What the page served of each origin is the start of that origin's rows.
        for row in rows:
            positions[row["origin"]] = Position(int(row["xid"]), row["id"])
    else:
        # Caught up: everything below each horizon was read. Never behind the cursor given (a
        # replica's snapshot may lag the primary's that served it).
        for origin, horizon in horizons.items():
            positions[origin] = max(horizon, after.get(origin, START),
                                    key=lambda p: (p.xid, p.change_id))
    return _page([row["change"] for row in rows], has_more,
                 signer.dump(caller.partner_id, caller.environment, positions))


START = Position(0, 0)


def _feed_page(conn, caller: Caller, after: Positions, horizons: Positions,
               size: int) -> list[dict[str, Any]]:
    if not horizons:
        return []
    width = max([*after, *horizons]) + 1  # the arrays are indexed by origin + 1
    at = [after.get(origin, START) for origin in range(width)]
    return queries().availability.feed_page(
        conn, partner_id=caller.partner_id, environment=caller.environment,
        after_xids=[str(p.xid) for p in at], after_ids=[p.change_id for p in at],
        horizons=[str(horizons[o].xid) if o in horizons else None for o in range(width)],
        low_xid=str(min(p.xid for p in at)),
        high_xid=str(max(p.xid for p in horizons.values())), page_size=size)


def _page(changes: list[str], has_more: bool, next_cursor: str) -> str:
    return ('{"changes":[' + ",".join(changes) + '],"next_cursor":' + json.dumps(next_cursor)
            + ',"has_more":' + ("true" if has_more else "false") + "}")
