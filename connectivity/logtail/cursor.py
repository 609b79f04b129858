"""A log's cursor: a position (logtail/positions.py) signed so that a partner cannot forge one or
read another partner's position with it.

Signed with itsdangerous (HMAC-SHA256, key derived from SECRET_KEY and a salt naming the log and
the payload's version), not encrypted: a partner can decode it, and it holds nothing secret. It
is bound to the partner and environment of the key that received it; any other key presenting
it gets 410 cursor_expired, as for a cursor that is not ours at all (contract 11.3: "unknown").
Each log signs with its own salt: a cursor of one log is unknown to another (their row ids are
not comparable).

The payload is packed: the numbers as unsigned LEB128 varints, in base64url. The contract
bounds a cursor at 200 characters and a Citus cluster gives a position per node: as JSON, the
positions of a cluster of a few workers would make cursors the feed itself refuses; packed, a
position with realistic values (transaction ids below 2^35, change ids below 2^42) takes 16
characters, so nine of them fit (tests/availability/test_feed_cursor.py)."""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Sequence

from itsdangerous import BadData, Signer

from connectivity.logtail.positions import Position, Positions
from connectivity.logtail.tail import CursorExpired
from connectivity.web.fields import MAX_CURSOR_LENGTH  # noqa: F401 - the cursors' bound

ENVIRONMENTS = ("sandbox", "production")  # stored as its index


class CursorSigner:
    """The packed cursors of one log, signed under `salt` (bump the version it names when the
    payload changes: older cursors then fail as unknown, never misread). `unknown`: the 410's
    message for a cursor that is not one of this log's for this key."""

    def __init__(self, secret_keys: str | Sequence[str], salt: str, unknown: str):
        """`secret_keys`: SECRET_KEY, or the keys a cursor may verify under with the current one
        last (itsdangerous signs with the last): a cursor signed before a rotation still
        loads."""
        self._keys = [secret_keys] if isinstance(secret_keys, str) else list(secret_keys)
        self._signer = Signer(self._keys, salt=salt, digest_method=hashlib.sha256)
        self.unknown = unknown

    def dump(self, partner_id: int, environment: str, positions: Positions) -> str:
        numbers = [partner_id, ENVIRONMENTS.index(environment)]
        for origin in sorted(positions):
            numbers += [origin, positions[origin].xid, positions[origin].change_id]
        packed = base64.urlsafe_b64encode(_varints(numbers)).rstrip(b"=")
        return self._signer.sign(packed).decode()

    def load(self, cursor: str, partner_id: int, environment: str) -> Positions:
        try:
            payload = self._load_packed(cursor)
        except BadData:
            payload = self._load_older(cursor)
        if not (isinstance(payload, list) and len(payload) % 3 == 2
                and payload[:2] == [partner_id, environment]
                and all(type(n) is int and n >= 0 for n in payload[2:])):
            raise CursorExpired(self.unknown)
        flat = payload[2:]
        return {flat[i]: Position(flat[i + 1], flat[i + 2]) for i in range(0, len(flat), 3)}

    def _load_packed(self, cursor: str) -> list:
        """[partner, environment, origin, xid, id, ...] from the packed form."""
        packed = self._signer.unsign(cursor)
        try:
            numbers = _read_varints(base64.urlsafe_b64decode(packed + b"=" * (-len(packed) % 4)))
        except (binascii.Error, ValueError):
            raise CursorExpired(self.unknown) from None
        if len(numbers) < 2 or numbers[1] >= len(ENVIRONMENTS):
            raise CursorExpired(self.unknown)
        return [numbers[0], ENVIRONMENTS[numbers[1]], *numbers[2:]]

    def _load_older(self, cursor: str) -> list:
        """A cursor of an earlier payload version, for a log that had one; none by default."""
        raise CursorExpired(self.unknown)


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
