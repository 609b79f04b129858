"""Who is calling: the checks of contract section 2, in the contract's order, each a 401."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property, partial
from typing import Callable

from flask import Request

from connectivity.web.errors import Unauthorized
from connectivity.auth import credentials, signing
from connectivity.auth.keycache import KeyCache, KeyLookup
from connectivity.auth.nonces import NonceLedger


@dataclass(frozen=True)
class Caller:
    key_id: str
    key_name: str
    environment: str
    partner_id: int
    partner_code: str
    partner_name: str
    scopes: frozenset[str]
    requires_signature: bool
    rate_limit_per_minute: int
    expires_at: datetime | None
    # Enough for the no_mapped_properties rule, and cheap on every request.
    has_mapped_properties: bool
    # The number itself is read only when asked for (GET /whoami): counting a partner's mappings
    # grows with the partner, and nothing else needs it.
    count_mapped_properties: Callable[[], int] = field(repr=False, compare=False)

    @cached_property
    def mapped_properties(self) -> int:
        # cached_property writes the instance __dict__ directly, which a frozen dataclass allows.
        return self.count_mapped_properties()


@dataclass(frozen=True)
class Presented:
    """The credentials as found on the request, before any is checked."""
    key_id: str
    bearer_secret: str | None = None       # bearer scheme
    timestamp: str | None = None           # signed scheme
    nonce: str | None = None
    signature: str | None = None


_SIGNED_WWW = 'HMAC-SHA256 realm="partner-connectivity", headers="X-Api-Key-Id X-Timestamp X-Nonce X-Signature"'
# What a newcomer who sent part of a signed request needs to hear (the docs page signs for them
# once authorized with the whole token; a key id alone there sends X-Api-Key-Id and nothing else).
_SIGNED_HINT = ("a signed request sends X-Api-Key-Id (the key id, the token's part before the "
                "'.'), X-Timestamp, X-Nonce and X-Signature; on the docs page, authorize "
                "`signed` with the whole token <key_id>.<secret> and the page signs for you")


def presented_credentials(request: Request) -> Presented:
    key_id = request.headers.get("X-Api-Key-Id")
    authorization = request.headers.get("Authorization")
    if key_id is not None and authorization:
        # Which of the two keys did the partner mean? Guessing served one key's request with
        # the other's scopes; the request is refused, saying why.
        raise Unauthorized("multiple_credentials",
                           "the request carries both 'Authorization' and X-Api-Key-Id; send one "
                           "credential: the bearer token of an unsigned key, or the four signed "
                           "headers of a signed key")
    if key_id is not None:
        key_id = key_id.strip()
        if "." in key_id:
            raise Unauthorized("invalid_credentials",
                               "X-Api-Key-Id must carry the key id alone, the token's part before "
                               "the '.', never the secret: " + _SIGNED_HINT,
                               headers={"WWW-Authenticate": _SIGNED_WWW})
        return Presented(key_id=key_id, timestamp=request.headers.get("X-Timestamp"),
                         nonce=request.headers.get("X-Nonce"),
                         signature=request.headers.get("X-Signature"))
    if not authorization:
        raise Unauthorized("missing_credentials",
                           "send 'Authorization: Bearer <key_id>.<secret>' or the signed-request headers "
                           "X-Api-Key-Id, X-Timestamp, X-Nonce and X-Signature")
    scheme, _, token = authorization.strip().partition(" ")
    parts = credentials.split_token(token.strip()) if scheme.lower() == "bearer" else None
    if parts is None:
        raise Unauthorized("invalid_credentials",
                           "the Authorization header must be 'Bearer <key_id>.<secret>'")
    return Presented(key_id=parts[0], bearer_secret=parts[1])


@dataclass(frozen=True)
class Authentication:
    """A request whose credentials passed every check of section 2 on `lookup.row`, which may
    be a cached copy still to be confirmed by the request's Redis round trip (`Authenticator.
    confirm`)."""
    presented: Presented
    lookup: KeyLookup

    @property
    def row(self) -> dict:
        return self.lookup.row


class Authenticator:
    def __init__(self, keys: KeyCache, count_mapped: Callable[[int, str], int],
                 vault: credentials.SigningVault, nonces: NonceLedger, max_skew_seconds: int):
        self._keys = keys
        self._count_mapped = count_mapped
        self._vault = vault
        self._nonces = nonces
        self._max_skew = max_skew_seconds

    def authenticate(self, request: Request) -> Authentication:
        presented = presented_credentials(request)
        if not _plausible_key_id(presented.key_id):
            lookup = KeyLookup(None, False, None)
        else:
            lookup = self._keys.lookup(presented.key_id)
        try:
            self._check(request, presented, lookup.row)
        except Unauthorized:
            # A copy only ever admits: a refusal is decided on the row as it is now, so that a
            # revoked key is told key_revoked rather than a later check's code.
            if not lookup.cached:
                raise
            lookup = self._keys.refresh(presented.key_id)
            self._check(request, presented, lookup.row)
        if presented.bearer_secret is None and not self._nonces.first_use(
                lookup.row["key_id"], presented.nonce):
            if lookup.cached:
                lookup = self._keys.refresh(presented.key_id)
                self._check(request, presented, lookup.row)  # key_revoked comes first
            raise Unauthorized("replayed_request",
                               "this nonce was already used with this key; send a new nonce",
                               headers={"WWW-Authenticate": _SIGNED_WWW})
        return Authentication(presented, lookup)

    def confirm(self, request: Request, authentication: Authentication,
                generation: bytes | None) -> Caller:
        """After the request's Redis round trip read the key-state `generation`: the caller, from
        a copy that generation confirms, else from the row read again and checked again (a
        revocation since the copy was filed is refused here)."""
        lookup = self._keys.settle(authentication.presented.key_id, authentication.lookup,
                                   generation)
        if lookup is not authentication.lookup:
            self._check(request, authentication.presented, lookup.row)
        row = lookup.row
        return _caller(row, partial(self._count_mapped, row["partner_id"], row["environment"]))

    def _check(self, request: Request, presented: Presented, row: dict | None) -> None:
        """Every check of section 2 but the nonce's, in the contract's order, on `row`."""
        if presented.bearer_secret is not None:
            if not credentials.secret_matches(presented.bearer_secret,
                                              row["secret_hash"] if row else None):
                raise Unauthorized("invalid_credentials", "unknown key or wrong secret")
        elif row is None:
            raise Unauthorized("invalid_credentials", "unknown key",
                               headers={"WWW-Authenticate": _SIGNED_WWW})

        now = datetime.now(timezone.utc)
        if row["revoked_at"] is not None:
            raise Unauthorized("key_revoked", "this key has been revoked")
        if row["expires_at"] is not None and row["expires_at"] <= now:
            raise Unauthorized("key_expired", f"this key expired at {row['expires_at'].isoformat()}")

        if presented.bearer_secret is not None:
            if row["requires_signature"]:
                raise Unauthorized("signature_required",
                                   "this key must sign its requests; a bearer token is not accepted",
                                   headers={"WWW-Authenticate": _SIGNED_WWW})
        else:
            self._check_signature(request, presented, row)

    def _check_signature(self, request: Request, presented: Presented, row: dict) -> None:
        """Timestamp and signature; the nonce is recorded after every other check passed."""
        def invalid(message: str) -> Unauthorized:
            return Unauthorized("invalid_signature", message,
                                headers={"WWW-Authenticate": _SIGNED_WWW})

        missing = [name for name, value in (("X-Timestamp", presented.timestamp),
                                            ("X-Nonce", presented.nonce),
                                            ("X-Signature", presented.signature)) if not value]
        # Without a timestamp nothing else can be judged; with one, a stale request is told so
        # before a missing nonce or signature (the order of the checks, contract section 2).
        if "X-Timestamp" in missing:
            raise invalid(_missing(missing))
        if not signing.TIMESTAMP_RE.match(presented.timestamp):
            raise invalid("X-Timestamp must be the request time in whole unix seconds")
        server_now = time.time()
        if abs(server_now - int(presented.timestamp)) > self._max_skew:
            server_time = datetime.fromtimestamp(int(server_now), timezone.utc).isoformat()
            # Whole seconds, server minus client (contract 11.5): positive when the client's
            # clock is behind, so a client can add it to its timestamps until its clock is fixed.
            skew = int(server_now) - int(presented.timestamp)
            raise Unauthorized(
                "stale_request",
                f"X-Timestamp is {abs(skew)} s {'behind' if skew > 0 else 'ahead of'} the "
                f"server clock ({server_time}), more than the {self._max_skew} s allowed; "
                "check the client's clock against GET /ping",
                details={"server_time": server_time, "skew_seconds": skew},
                headers={"WWW-Authenticate": _SIGNED_WWW})
        if missing:
            raise invalid(_missing(missing))
        if not signing.NONCE_RE.match(presented.nonce):
            raise invalid("X-Nonce must be 8-64 characters of [A-Za-z0-9_-]")
        secret = self._vault.open(row["signing_secret"])
        expected = signing.signature(
            secret or "", request.method, signing.request_target(request.environ),
            presented.timestamp, presented.nonce, request.get_data(cache=True))
        if secret is None or not signing.signature_matches(presented.signature.strip().lower(),
                                                           expected):
            raise invalid("the signature does not match the request")


def _missing(headers: list[str]) -> str:
    """["X-Nonce", "X-Signature"] -> "X-Nonce and X-Signature are missing: <how to sign>"."""
    said = f"{', '.join(headers[:-1])} and {headers[-1]} are" if len(headers) > 1 \
        else f"{headers[0]} is"
    return f"{said} missing: {_SIGNED_HINT}"


def _plausible_key_id(key_id: str) -> bool:
    # Cheap shape check so obvious garbage never reaches the database.
    return 4 < len(key_id) <= 80 and key_id.isascii()


def _caller(row: dict, count_mapped: Callable[[], int]) -> Caller:
    return Caller(
        key_id=row["key_id"], key_name=row["name"], environment=row["environment"],
        partner_id=row["partner_id"], partner_code=row["partner_code"],
        partner_name=row["partner_name"], scopes=frozenset(row["scopes"]),
        requires_signature=row["requires_signature"],
        rate_limit_per_minute=row["rate_limit_per_minute"], expires_at=row["expires_at"],
        has_mapped_properties=row["has_mapped_properties"], count_mapped_properties=count_mapped)
