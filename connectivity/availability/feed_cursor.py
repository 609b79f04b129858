"""The change feed's cursor: the shared packed cursor (logtail/cursor.py) under the feed's salt
(v3), which also reads the feed's earlier payloads: v2 (JSON, the same fields) and v1 (one
position, read as origin 0's, plain PostgreSQL's only origin). Partners may hold them between
polls."""

from __future__ import annotations

from collections.abc import Sequence

from itsdangerous import BadData, URLSafeSerializer

from connectivity.logtail.cursor import ENVIRONMENTS, MAX_CURSOR_LENGTH
from connectivity.logtail.cursor import CursorSigner as LogCursorSigner
from connectivity.logtail.positions import Position, Positions
from connectivity.logtail.tail import CursorExpired

__all__ = ["ENVIRONMENTS", "EXPIRED", "MAX_CURSOR_LENGTH", "CursorExpired", "CursorSigner",
           "Position", "Positions"]

SALT = "pcs.change-feed-cursor.v3"
_SALT_V2 = "pcs.change-feed-cursor.v2"
_SALT_V1 = "pcs.change-feed-cursor.v1"


class CursorSigner(LogCursorSigner):
    def __init__(self, secret_keys: str | Sequence[str]):
        super().__init__(secret_keys, SALT, _UNKNOWN)
        self._serializer_v2 = URLSafeSerializer(self._keys, salt=_SALT_V2)
        self._serializer_v1 = URLSafeSerializer(self._keys, salt=_SALT_V1)

    def _load_older(self, cursor: str) -> list:
        try:
            return self._serializer_v2.loads(cursor)
        except BadData:
            return self._load_v1(cursor)

    def _load_v1(self, cursor: str) -> list:
        """[partner, environment, xid, id]: origin 0's position."""
        try:
            payload = self._serializer_v1.loads(cursor)
        except BadData:
            raise CursorExpired(_UNKNOWN) from None
        if not (isinstance(payload, list) and len(payload) == 4):
            raise CursorExpired(_UNKNOWN)
        return [*payload[:2], 0, *payload[2:]]


_UNKNOWN = ("this cursor is not one the feed gave this key; start again without a cursor "
            "(GET /availability/changes) and read what you need afresh")
EXPIRED = ("this cursor is older than the changes kept (at least 7 days); start again without "
           "a cursor and read what you need afresh")
