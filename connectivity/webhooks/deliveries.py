"""What a partner sees of and does with an endpoint's deliveries (contract 12.3): the list,
newest first; a replay of one event; a ping. A replay or a ping is a delivery due now, sent by
the webhook worker like any other (signed, checked against the URL rules at send time)."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import secrets
from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.web.errors import NotFound, ValidationFailed
from connectivity.web.fields import FOREIGN_CURSOR
from connectivity.webhooks.endpoints import find_endpoint

CURSOR_PREFIX = b"wd1:"


def list_deliveries(db: Database, caller: Caller, endpoint_id: str,
                    query: dict[str, Any]) -> dict[str, Any]:
    limit = query["limit"]
    before = None if query.get("cursor") is None else _load_cursor(query["cursor"])
    with db.connection() as conn:
        find_endpoint(conn, caller, endpoint_id)
        rows = queries().webhooks.list_deliveries(
            conn, partner_id=caller.partner_id, endpoint_id=endpoint_id,
            status=query.get("status"), before_seq=before, max_count=limit + 1)
    has_more = len(rows) > limit
    rows = rows[:limit]
    return {"deliveries": rows,
            "next_cursor": _dump_cursor(rows[-1]["seq"]) if has_more else None,
            "has_more": has_more}


def _dump_cursor(seq: int) -> str:
    return base64.urlsafe_b64encode(CURSOR_PREFIX + str(seq).encode()).decode().rstrip("=")


def _load_cursor(cursor: str) -> int:
    """The position a cursor stands for. It reveals nothing (the list is the caller's own), so it
    is encoded, not signed; anything that is not one of ours is 422 naming `cursor`."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        if raw.startswith(CURSOR_PREFIX) and raw[len(CURSOR_PREFIX):].isdigit():
            seq = int(raw[len(CURSOR_PREFIX):])
            if 0 < seq < 2**63:
                return seq
    except (binascii.Error, ValueError):
        pass
    raise ValidationFailed({"cursor": [FOREIGN_CURSOR]})


def replay_delivery(db: Database, caller: Caller, endpoint_id: str, event_id: str) -> None:
    db.run(_replay, caller, endpoint_id, event_id)


def _replay(conn, caller: Caller, endpoint_id: str, event_id: str) -> None:
    find_endpoint(conn, caller, endpoint_id)
    if queries().webhooks.replay_delivery(conn, partner_id=caller.partner_id,
                                          endpoint_id=endpoint_id, event_id=event_id) is None:
        raise NotFound(f"no delivery of event {event_id!r} to endpoint {endpoint_id!r}")


def ping_endpoint(db: Database, caller: Caller, endpoint_id: str,
                  now: dt.datetime) -> dict[str, Any]:
    """The ping event, as it is sent (not in the event log)."""
    return db.run(_ping, caller, endpoint_id, now)


def _ping(conn, caller: Caller, endpoint_id: str, now: dt.datetime) -> dict[str, Any]:
    find_endpoint(conn, caller, endpoint_id)
    event = {"event_id": "evt_" + secrets.token_hex(16), "type": "ping", "created_at": now,
             "data": {}}
    body = json.dumps({**event, "created_at": now.isoformat()}, separators=(",", ":"))
    queries().webhooks.add_ping(conn, partner_id=caller.partner_id, endpoint_id=endpoint_id,
                                event_id=event["event_id"], body=body)
    return event
