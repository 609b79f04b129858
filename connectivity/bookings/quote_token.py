"""Quote tokens: the price of one exact stay, signed so that POST /bookings can honour it.

Signed with itsdangerous (HMAC-SHA256, key derived from SECRET_KEY and a versioned salt), not
encrypted: a partner can decode one, so it holds nothing secret. It holds the quoted total and
currency, the nationality the quote was priced for (contract section 10: a booking with a token
uses it), its expiry, and a digest binding it to the partner, environment, hotel, room type, rate
plan, dates, rooms and occupancy. A digest rather than the fields themselves keeps the token
near 150 characters whatever the codes' lengths, and a partner's own codes are what it sent.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from itsdangerous import BadData, URLSafeSerializer

from connectivity.web.errors import Conflict, InvalidQuoteToken
from connectivity.pricing import RoomOccupancy

# Bump the version when the payload changes: older tokens then fail as invalid, never misread.
SALT = "pcs.quote-token.v1"
MAX_TOKEN_LENGTH = 512
# What URLSafeSerializer writes: URL-safe base64 parts joined by '.' (a compressed payload
# starts with one). Anything else cannot be a token of ours.
TOKEN_RE = re.compile(rf"^[A-Za-z0-9_.-]{{1,{MAX_TOKEN_LENGTH}}}\Z")
TOKEN_PATTERN = rf"^[A-Za-z0-9_.-]{{1,{MAX_TOKEN_LENGTH}}}$"


@dataclass(frozen=True)
class StayBinding:
    partner_id: int
    environment: str
    hotel_code: str
    room_type_code: str
    rate_plan_code: str
    check_in: dt.date
    check_out: dt.date
    rooms: int
    occupancy: Sequence[RoomOccupancy]

    def digest(self) -> str:
        # Rooms sorted: which room holds which guests does not change the price or the fit.
        rooms = sorted([r.adults, sorted(-1 if a is None else a for a in r.children_ages)]
                       for r in self.occupancy)
        canonical = json.dumps([self.partner_id, self.environment, self.hotel_code,
                                self.room_type_code, self.rate_plan_code,
                                self.check_in.isoformat(), self.check_out.isoformat(),
                                self.rooms, rooms], separators=(",", ":"))
        return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()[:18]).decode()


@dataclass(frozen=True)
class QuotedPrice:
    total: Decimal
    currency: str
    nationality: str | None
    binding: str
    expires_at: dt.datetime


class QuoteTokens:
    def __init__(self, secret_keys: str | Sequence[str], ttl_seconds: int):
        """`secret_keys`: SECRET_KEY, or the keys a token may verify under with the current one
        last: a token signed before a rotation keeps working until it expires."""
        self._serializer = URLSafeSerializer(_key_list(secret_keys), salt=SALT,
                                             signer_kwargs={"digest_method": hashlib.sha256})
        self.ttl_seconds = ttl_seconds

    def issue(self, binding: StayBinding, total: Decimal, currency: str,
              nationality: str | None, now: dt.datetime) -> tuple[str, dt.datetime]:
        expires = int(now.timestamp()) + self.ttl_seconds
        token = self._serializer.dumps({"b": binding.digest(), "t": str(total), "c": currency,
                                        "n": nationality, "x": expires})
        if len(token) > MAX_TOKEN_LENGTH:  # fixed-size fields: only a code change gets here
            raise AssertionError(f"quote token of {len(token)} characters")
        return token, dt.datetime.fromtimestamp(expires, dt.timezone.utc)

    def open(self, token: str, now: dt.datetime) -> QuotedPrice:
        """The quoted price, or 422 `invalid_quote_token` / 409 `quote_expired`. Whether it was
        issued for this stay is the caller's check (`ensure_for`), after these two."""
        try:
            payload = self._serializer.loads(token)
            total = Decimal(payload["t"])
            quoted = QuotedPrice(total, str(payload["c"]), payload["n"], str(payload["b"]),
                                 dt.datetime.fromtimestamp(int(payload["x"]), dt.timezone.utc))
        except (BadData, KeyError, TypeError, ValueError, InvalidOperation, OverflowError):
            raise InvalidQuoteToken("quote_token was not issued by this service or was altered; "
                                    "request a new quote") from None
        if now >= quoted.expires_at:
            raise Conflict("quote_expired", f"the quote expired at {quoted.expires_at.isoformat()}"
                           "; request a new quote",
                           details={"expired_at": quoted.expires_at.isoformat()})
        return quoted

    @staticmethod
    def ensure_for(quoted: QuotedPrice, binding: StayBinding) -> None:
        if quoted.binding != binding.digest():
            raise Conflict("quote_mismatch", "quote_token was issued for another stay, partner "
                           "or occupancy (hotel, room type, rate plan, dates, rooms and guests "
                           "per room must be those quoted)")


def _key_list(secret_keys: str | Sequence[str]) -> list[str]:
    return [secret_keys] if isinstance(secret_keys, str) else list(secret_keys)
