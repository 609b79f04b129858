"""The change feed's cursor: a position (transaction id, change id) in change_log, signed so
that a partner cannot forge one or read another partner's position with it.

Signed with itsdangerous (HMAC-SHA256, key derived from SECRET_KEY and a versioned salt), not
encrypted: a partner can decode it, and it holds nothing secret. It is bound to the partner and
environment of the key that received it; any other key presenting it gets 410 cursor_expired,
as for a cursor that is not ours at all (contract 11.3: "unknown")."""

from __future__ import annotations

from dataclasses import dataclass

from itsdangerous import BadData, URLSafeSerializer

from ..errors import ApiError

# Bump the version when the payload changes: older cursors then fail as unknown, never misread.
SALT = "pcs.change-feed-cursor.v1"
MAX_CURSOR_LENGTH = 200


class CursorExpired(ApiError):
    """410 (contract 11.3): pruned past, or not a cursor of ours; start again without one."""
    status, code = 410, "cursor_expired"


@dataclass(frozen=True)
class Position:
    xid: int
    change_id: int


class CursorSigner:
    def __init__(self, secret_key: str):
        self._serializer = URLSafeSerializer(secret_key, salt=SALT)

    def dump(self, partner_id: int, environment: str, position: Position) -> str:
        return self._serializer.dumps([partner_id, environment, position.xid,
                                       position.change_id])

    def load(self, cursor: str, partner_id: int, environment: str) -> Position:
        try:
            payload = self._serializer.loads(cursor)
        except BadData:
            raise CursorExpired(_UNKNOWN) from None
        if not (isinstance(payload, list) and len(payload) == 4
                and payload[:2] == [partner_id, environment]
                and all(type(n) is int and n >= 0 for n in payload[2:])):
            raise CursorExpired(_UNKNOWN)
        return Position(payload[2], payload[3])


_UNKNOWN = ("this cursor is not one the feed gave this key; start again without a cursor "
            "(GET /availability/changes) and read what you need afresh")
EXPIRED = ("this cursor is older than the changes kept (at least 7 days); start again without "
           "a cursor and read what you need afresh")
