"""The change feed's cursor: a position (transaction id, change id) in change_log for each
origin (the node whose transaction ids a row carries; one, 0, on plain PostgreSQL), signed so
that a partner cannot forge one or read another partner's position with it. An origin the
cursor does not name is at position (0, 0): from its first change.

Signed with itsdangerous (HMAC-SHA256, key derived from SECRET_KEY and a versioned salt), not
encrypted: a partner can decode it, and it holds nothing secret. It is bound to the partner and
environment of the key that received it; any other key presenting it gets 410 cursor_expired,
as for a cursor that is not ours at all (contract 11.3: "unknown").

The payload is packed (v3): the numbers as unsigned LEB128 varints, in base64url. The contract
bounds a cursor at 200 characters and a Citus cluster gives a position per node: as JSON, the
positions of a cluster of a few workers would make cursors the feed itself refuses; packed, a
position with realistic values (transaction ids below 2^35, change ids below 2^42) takes 16
characters, so nine of them fit (tests/availability/test_feed_cursor.py)."""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from itsdangerous import BadData, Signer, URLSafeSerializer

from connectivity.web.errors import ApiError

# Bump the version when the payload changes: older cursors then fail as unknown, never misread.
# v2 (JSON, the same fields) and v1 (one position, read as origin 0's, plain PostgreSQL's only
# origin) are read too: partners may hold them between polls.
SALT = "pcs.change-feed-cursor.v3"
_SALT_V2 = "pcs.change-feed-cursor.v2"
_SALT_V1 = "pcs.change-feed-cursor.v1"
MAX_CURSOR_LENGTH = 200  # the contract's
ENVIRONMENTS = ("sandbox", "production")  # stored as its index


class CursorExpired(ApiError):
    """410 (contract 11.3): pruned past, or not a cursor of ours; start again without one."""
    code = "cursor_expired"


@dataclass(frozen=True)
class Position:
    xid: int
    change_id: int


Positions = dict[int, Position]  # by origin


class CursorSigner:
    def __init__(self, secret_keys: str | Sequence[str]):
        """`secret_keys`: SECRET_KEY, or the keys a cursor may verify under with the current one
        last (itsdangerous signs with the last): a cursor signed before a rotation still
        loads."""
        keys = [secret_keys] if isinstance(secret_keys, str) else list(secret_keys)
        self._signer = Signer(keys, salt=SALT, digest_method=hashlib.sha256)
        self._serializer_v2 = URLSafeSerializer(keys, salt=_SALT_V2)
        self._serializer_v1 = URLSafeSerializer(keys, salt=_SALT_V1)

    def dump(self, partner_id: int, environment: str, positions: Positions) -> str:
        numbers = [partner_id, ENVIRONMENTS.index(environment)]
        for origin in sorted(positions):
            numbers += [origin, positions[origin].xid, positions[origin].change_id]
        packed = base64.urlsafe_b64encode(_varints(numbers)).rstrip(b"=")
        return self._signer.sign(packed).decode()

    def load(self, cursor: str, partner_id: int, environment: str) -> Positions:
        try:
            payload = self._load_v3(cursor)
        except BadData:
            payload = self._load_v2(cursor)
        if not (isinstance(payload, list) and len(payload) % 3 == 2
                and payload[:2] == [partner_id, environment]
                and all(type(n) is int and n >= 0 for n in payload[2:])):
            raise CursorExpired(_UNKNOWN)
        flat = payload[2:]
        return {flat[i]: Position(flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)}

    def _load_v3(self, cursor: str) -> list:
        """[partner, environment, origin, xid, id, ...] from the packed form."""
        packed = self._signer.unsign(cursor)
        try:
            numbers = _read_varints(base64.urlsafe_b64decode(packed + b"=" * (-len(packed) % 4)))
        except (binascii.Error, ValueError):
            raise CursorExpired(_UNKNOWN) from None
        if len(numbers) < 2 or numbers[1] >= len(ENVIRONMENTS):
            raise CursorExpired(_UNKNOWN)
        return [numbers[0], ENVIRONMENTS[numbers[1]], *numbers[2:]]

    def _load_v2(self, cursor: str) -> list:
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


def _varints(numbers: list[int]) -> bytes:
    """Unsigned LEB128: seven bits a byte, low bits first, the high bit set on all but the
    last byte of a number."""
    out = bytearray()
    for n in numbers:
        while n >= 0x80:
            out.append(0x80 | (n & 0x7F))
            n >>= 7
        out.append(n)
    return bytes(out)


def _read_varints(data: bytes) -> list[int]:
    numbers, n, shift = [], 0, 0
    for byte in data:
        n |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            numbers.append(n)
            n, shift = 0, 0
    if shift:
        raise ValueError("a number is cut short")
    return numbers


_UNKNOWN = ("this cursor is not one the feed gave this key; start again without a cursor "
            "(GET /availability/changes) and read what you need afresh")
EXPIRED = ("this cursor is older than the changes kept (at least 7 days); start again without "
           "a cursor and read what you need afresh")
