"""GET /availability/changes (contract 11.3): what changed, for a reseller keeping a cache.

No gap, whatever the commit order: change_log rows carry their writing transaction's id, and a
page only reads below the horizon of its snapshot, pg_snapshot_xmin (every transaction below it
has finished), in (xid, id) order; the cursor is the position after the last row served, or
the horizon once the caller is up to date. A transaction that started earlier but commits later
has an xid at or above the horizon of every page served before its commit, so it is read by a
later page. The cost: a change waits for the oldest transaction running at its commit to end
before it is served (docs/operations.md, "The change feed").

`read_changes` takes the database it reads from: the feed may be served by a replica."""

from __future__ import annotations

import json
from typing import Any

from ..auth.authenticate import Caller
from ..queries import queries
from ..reads import Reads
from .feed_cursor import EXPIRED, CursorExpired, CursorSigner, Position

DEFAULT_PAGE_SIZE = 500
MAX_PAGE_SIZE = 1000


def read_changes(db: Reads, signer: CursorSigner, caller: Caller,
                 request: dict[str, Any]) -> str:
    """The answer's `data`, as JSON text (each change written by PostgreSQL)."""
    cursor = request.get("cursor")
    if cursor is None:
        with db.connection() as conn:
            horizon = queries().changes.feed_horizon(conn)["horizon"]
        return _page([], False, signer.dump(caller.partner_id, caller.environment,
                                            Position(int(horizon), 0)))
    after = signer.load(cursor, caller.partner_id, caller.environment)
    size = request.get("limit", DEFAULT_PAGE_SIZE)
    with db.connection() as conn:
        rows = queries().changes.feed_page(
            conn, partner_id=caller.partner_id, environment=caller.environment,
            after_xid=str(after.xid), after_id=after.change_id, page_size=size)
    horizon, pruned = int(rows[0]["horizon"]), rows[0]["pruned_through"]
    if pruned is not None and after.xid <= int(pruned):
        raise CursorExpired(EXPIRED)
    changes = [row for row in rows if row["id"] is not None]
    has_more = len(changes) > size
    changes = changes[:size]
    if has_more:
        position = Position(int(changes[-1]["xid"]), changes[-1]["id"])
    else:
        # Caught up: everything below the horizon was read. Never behind the cursor given
        # (a replica's snapshot may lag the primary's that served it).
        position = max(Position(horizon, 0), after, key=lambda p: (p.xid, p.change_id))
    return _page([row["change"] for row in changes], has_more,
                 signer.dump(caller.partner_id, caller.environment, position))


def _page(changes: list[str], has_more: bool, next_cursor: str) -> str:
    return ('{"changes":[' + ",".join(changes) + '],"next_cursor":' + json.dumps(next_cursor)
            + ',"has_more":' + ("true" if has_more else "false") + "}")
