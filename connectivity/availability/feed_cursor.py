"""The change feed's cursor: a position (transaction id, change id) in change_log for each
origin (the node whose transaction ids a row carries; one, 0, on plain PostgreSQL), signed so
that a partner cannot forge one or read another partner's position with it. An origin the
cursor does not name is at position (0, 0): from its first change.

Signed with itsdangerous (HMAC-SHA256, key derived from SECRET_KEY and a versioned salt), not
encrypted: a partner can decode it, and it holds nothing secret. It is bound to the partner and
environment of the key that received it; any other key presenting it gets 410 cursor_expired,
as for a cursor that is not ours at all (contract 11.3: "unknown")."""

from __future__ import annotations

from dataclasses import dataclass

from itsdangerous import BadData, URLSafeSerializer

from ..errors import ApiError

# Bump the version when the payload changes: older cursors then fail as unknown, never misread.
# v1 held a single position, read as origin 0's (the only origin before Citus).
SALT = "pcs.change-feed-cursor.v2"
_SALT_V1 = "pcs.change-feed-cursor.v1"
# The contract's bound: three positions (a coordinator and two workers) take about 150.
MAX_CURSOR_LENGTH = 200


class CursorExpired(ApiError):
    """410 (contract 11.3): pruned past, or not a cursor of ours; start again without one."""
    status, code = 410, "cursor_expired"


@dataclass(frozen=True)
class Position:
    xid: int
    change_id: int


Positions = dict[int, Position]  # by origin


class CursorSigner:
    def __init__(self, secret_key: str):
        self._serializer = URLSafeSerializer(secret_key, salt=SALT)
        self._serializer_v1 = URLSafeSerializer(secret_key, salt=_SALT_V1)

    def dump(self, partner_id: int, environment: str, positions: Positions) -> str:
        flat = [n for origin in sorted(positions)
                for n in (origin, positions[origin].xid, positions[origin].change_id)]
        return self._serializer.dumps([partner_id, environment, *flat])

    def load(self, cursor: str, partner_id: int, environment: str) -> Positions:
        try:
            payload = self._serializer.loads(cursor)
        except BadData:
            payload = self._load_v1(cursor)
        if not (isinstance(payload, list) and len(payload) % 3 == 2
                and payload[:2] == [partner_id, environment]
                and all(type(n) is int and n >= 0 for n in payload[2:])):
            raise CursorExpired(_UNKNOWN)
        flat = payload[2:]
        return {flat[i]: Position(flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)}

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
