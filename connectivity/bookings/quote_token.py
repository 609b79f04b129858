"""Quote tokens: the price of one exact stay, signed so that POST /bookings can honour it.

Signed with itsdangerous (HMAC-SHA256, key derived from SECRET_KEY and a versioned salt), not
encrypted: a partner can decode one, so it holds nothing secret. It holds the quoted total and
currency, the nationality the quote was priced for (contract section 10: a booking with a token
uses it), its expiry, and a digest binding it to the partner, environment, hotel, room type, rate
plan, dates, rooms and occupancy. The digest decides; beside it the token carries the stay's
fields as quoted (`s`), so that a booking of another stay is told which fields differ and what
was quoted (409 `quote_mismatch`'s `details.fields`). A field too long to carry within
MAX_TOKEN_LENGTH (a long code, a large mixed occupancy) is carried as a digest of its own: it is
still named, without its quoted value. A partner's own codes are what it sent.
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
from itertools import groupby
from typing import Any

from itsdangerous import BadData, URLSafeSerializer

from connectivity.web.errors import Conflict, InvalidQuoteToken
from connectivity.pricing import RoomOccupancy

# Bump the version when the payload changes meaning: older tokens then fail as invalid, never
# misread. (`s` was added without a bump: a token without it is read as before, and one with it
# means nothing else to code that ignores it.)
SALT = "pcs.quote-token.v1"
MAX_TOKEN_LENGTH = 512
# What URLSafeSerializer writes: URL-safe base64 parts joined by '.' (a compressed payload
# starts with one). Anything else cannot be a token of ours.
TOKEN_RE = re.compile(rf"^[A-Za-z0-9_.-]{{1,{MAX_TOKEN_LENGTH}}}\Z")
TOKEN_PATTERN = rf"^[A-Za-z0-9_.-]{{1,{MAX_TOKEN_LENGTH}}}$"
# The stay's fields a token carries, in this order, as a mismatch names them; each carried as
# its value when its JSON is at most these many UTF-8 bytes, else as {"#": its digest}. The
# bounds keep the longest token under MAX_TOKEN_LENGTH (tests/bookings/test_quote_token.py).
STAY_FIELDS = ("hotel_code", "room_type_code", "rate_plan_code", "check_in", "check_out",
               "rooms", "occupancy")
CARRIED_BYTES = 34
CARRIED_OCCUPANCY_BYTES = 64


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _short_digest(value: Any) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(_json(value)).digest()[:6]).decode()


def _rooms_shown(groups: Sequence[Sequence[Any]]) -> list[dict[str, Any]]:
    """Carried occupancy ([count, adults, ages] per run of equal rooms) as a partner reads it:
    one entry per room, as priced (a child older than the hotel's max_child_age is an adult;
    an age not given is null)."""
    return [{"adults": adults, "child_ages": list(ages)}
            for count, adults, ages in groups for _ in range(count)]


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

    def _rooms(self) -> list[list]:
        # Rooms sorted: which room holds which guests does not change the price or the fit.
        return sorted([r.adults, sorted(-1 if a is None else a for a in r.children_ages)]
                      for r in self.occupancy)

    def digest(self) -> str:
        canonical = json.dumps([self.partner_id, self.environment, self.hotel_code,
                                self.room_type_code, self.rate_plan_code,
                                self.check_in.isoformat(), self.check_out.isoformat(),
                                self.rooms, self._rooms()], separators=(",", ":"))
        return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()[:18]).decode()

    def _values(self) -> list[Any]:
        """The STAY_FIELDS' values, JSON-shaped; occupancy as runs of equal sorted rooms."""
        rooms = [[len(list(run)), adults, [None if a == -1 else a for a in ages]]
                 for (adults, ages), run in groupby(self._rooms(), key=tuple)]
        return [self.hotel_code, self.room_type_code, self.rate_plan_code,
                self.check_in.isoformat(), self.check_out.isoformat(), self.rooms, rooms]

    def carried(self) -> list[Any]:
        """What a token carries of the stay (`s`): each field's value, or its digest when the
        value is too long to carry."""
        return [value if len(_json(value)) <= (CARRIED_OCCUPANCY_BYTES if name == "occupancy"
                                               else CARRIED_BYTES)
                else {"#": _short_digest(value)}
                for name, value in zip(STAY_FIELDS, self._values())]

    def differences(self, carried: Sequence[Any]) -> dict[str, dict[str, Any]]:
        """{field: {"quoted", "requested"}} for each field of this stay that is not the one
        `carried` (quoted null: carried as a digest only)."""
        shown = {}
        for name, quoted, requested in zip(STAY_FIELDS, carried, self._values()):
            if isinstance(quoted, dict):
                if quoted.get("#") == _short_digest(requested):
                    continue
                quoted = None
            elif quoted == requested:
                continue
            if name == "occupancy":
                quoted = None if quoted is None else _rooms_shown(quoted)
                requested = _rooms_shown(requested)
            shown[name] = {"quoted": quoted, "requested": requested}
        return shown


@dataclass(frozen=True)
class QuotedPrice:
    total: Decimal
    currency: str
    nationality: str | None
    binding: str
    expires_at: dt.datetime
    stay: list | None = None  # StayBinding.carried() of the stay quoted (None: an older token)


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
                                        "n": nationality, "x": expires,
                                        "s": binding.carried()})
        if len(token) > MAX_TOKEN_LENGTH:  # fixed-size fields: only a code change gets here
            raise AssertionError(f"quote token of {len(token)} characters")
        return token, dt.datetime.fromtimestamp(expires, dt.timezone.utc)

    def open(self, token: str, now: dt.datetime) -> QuotedPrice:
        """The quoted price, or 422 `invalid_quote_token` / 409 `quote_expired`. Whether it was
        issued for this stay is the caller's check (`ensure_for`), after these two."""
        try:
            payload = self._serializer.loads(token)
            total = Decimal(payload["t"])
            stay = payload.get("s")
            quoted = QuotedPrice(total, str(payload["c"]), payload["n"], str(payload["b"]),
                                 dt.datetime.fromtimestamp(int(payload["x"]), dt.timezone.utc),
                                 stay if isinstance(stay, list)
                                 and len(stay) == len(STAY_FIELDS) else None)
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
        """409 `quote_mismatch` unless `quoted` was issued for `binding`'s stay and partner;
        `details.fields` names each field that differs with its quoted and requested values
        (none: the token was issued to another partner or environment)."""
        if quoted.binding == binding.digest():
            return
        if quoted.stay is None:
            raise Conflict("quote_mismatch", "quote_token was issued for another stay, partner "
                           "or occupancy (hotel, room type, rate plan, dates, rooms and guests "
                           "per room must be those quoted)")
        fields = binding.differences(quoted.stay)
        message = (f"quote_token was issued for another stay: {', '.join(fields)} "
                   f"{'differs' if len(fields) == 1 else 'differ'} (details.fields has the "
                   "quoted and requested values); book the stay quoted, or quote this one"
                   if fields else
                   "quote_token was issued to another partner or environment; quote this stay "
                   "with this key")
        raise Conflict("quote_mismatch", message, details={"fields": fields})


def _key_list(secret_keys: str | Sequence[str]) -> list[str]:
    return [secret_keys] if isinstance(secret_keys, str) else list(secret_keys)
