"""GET /events (contract 12.2): a page of the caller's partner's log in its key's environment,
of the types its scopes let it see."""

from __future__ import annotations

from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.store.database import Database
from connectivity.store.read_fence import ReadFence
from connectivity.web.errors import ValidationFailed
from connectivity.events import log
from connectivity.logtail import tail
from connectivity.events.cursor import EventCursors


def read_events(db: Database, cursors: EventCursors, caller: Caller, query: dict[str, Any],
                fence: ReadFence) -> str:
    """The answer's `data`, as JSON text (each event written by PostgreSQL). A page that
    serves an event moves the read fence first: its cause's writer may not have moved it yet,
    and every read must reflect what an event told (contract 13.1)."""
    visible = log.types_visible_to(caller.scopes)
    types = query.get("types", visible)
    hidden = [t for t in types if t not in visible]
    if hidden:
        raise ValidationFailed({"types": [
            f"this key may not see {', '.join(map(repr, hidden))} (its scopes: "
            f"{', '.join(sorted(caller.scopes)) or 'none'})"]})
    cursor = query.get("cursor")
    after = (None if cursor is None
             else cursors.load(cursor, caller.partner_id, caller.environment))
    with db.connection() as conn:
        if query.get("start") == "latest":
            return tail.page_json("events", [], False, cursors.dump(
                caller.partner_id, caller.environment, log.latest(conn)))
        page = log.read_page(conn, caller.partner_id, caller.environment,
                             log.oldest(conn) if after is None else after, query["limit"],
                             types, check_expiry=after is not None)
    if page.events:
        fence.move_or_warn()
    return tail.page_json("events", [e.body for e in page.events], page.has_more,
                          cursors.dump(caller.partner_id, caller.environment, page.next))
