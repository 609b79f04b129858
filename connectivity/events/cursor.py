"""GET /events' cursor: a position in the event log (logtail/cursor.py), signed under the event
log's own salt, so that a change-feed cursor is unknown here and this one there."""

from __future__ import annotations

from collections.abc import Sequence

from connectivity.logtail.cursor import CursorSigner

SALT = "pcs.event-log-cursor.v1"
UNKNOWN = ("this cursor is not one GET /events gave this key; start again without a cursor "
           "(or with start=latest)")


class EventCursors(CursorSigner):
    def __init__(self, secret_keys: str | Sequence[str]):
        super().__init__(secret_keys, SALT, UNKNOWN)
