"""GET /availability/changes (contract 11.3): what changed, for a reseller keeping a cache.

No gap, whatever the commit order: change_log is read as every gapless log is, below each
origin's horizon in (xid, id) order (connectivity/logtail/tail.py says how and why); the cursor
holds that position (connectivity/availability/feed_cursor.py).

`read_changes` takes the database it reads from: the feed may be served by a replica."""

from __future__ import annotations

from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.logtail import tail
from connectivity.store.queries import queries
from connectivity.store.read_fence import ReadFence
from connectivity.store.replica import Reads
from connectivity.availability.feed_cursor import EXPIRED, CursorSigner

DEFAULT_PAGE_SIZE = 500
MAX_PAGE_SIZE = 1000


def read_changes(db: Reads, signer: CursorSigner, caller: Caller, request: dict[str, Any],
                 fence: ReadFence) -> str:
    """The answer's `data`, as JSON text (each change written by PostgreSQL). A page that
    serves a change moves the read fence first: the change's writer may not have moved it yet,
    and search and rates must reflect what the feed served (contract 13.1)."""
    cursor = request.get("cursor")
    after = (None if cursor is None
             else signer.load(cursor, caller.partner_id, caller.environment))
    marks = queries().availability.feed_pruned
    with db.connection() as conn:
        if after is None:
            return tail.page_json("changes", [], False, signer.dump(
                caller.partner_id, caller.environment, tail.latest(conn, marks)))

        def read_rows(conn, **bounds):
            return queries().availability.feed_page(
                conn, partner_id=caller.partner_id, environment=caller.environment, **bounds)

        page = tail.read_page(conn, after, request.get("limit", DEFAULT_PAGE_SIZE), read_rows,
                              marks, EXPIRED)
    if page.rows:
        fence.move_or_warn()
    return tail.page_json("changes", [row["change"] for row in page.rows], page.has_more,
                          signer.dump(caller.partner_id, caller.environment, page.next))
