"""Issuing and revoking partner API keys. The token is returned to the caller once and exists
nowhere else: the database keeps a hash and the sealed signing secret."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from connectivity.auth import credentials
from connectivity.auth.keycache import KEY_STATE_CHANGED
from connectivity.auth.scopes import SIGNED_BY_DEFAULT, scopes_for
from connectivity.store.database import announces
from connectivity.store.queries import queries

if TYPE_CHECKING:
    import psycopg

DEFAULT_RATE_LIMIT_PER_MINUTE = 600


class KeyIssueError(ValueError):
    pass


class UnknownPartner(KeyIssueError):
    pass


def known_partner(conn: psycopg.Connection, partner_code: str) -> dict:
    """The partner's row; UnknownPartner when no partner has that code, so that a typo is an
    error, never an empty answer."""
    partner = queries().operator.find_partner(conn, code=partner_code)
    if partner is None:
        raise UnknownPartner(f"unknown partner {partner_code!r}")
    return partner


@dataclass(frozen=True)
class IssuedKey:
    key_id: str
    token: str
    name: str
    environment: str
    scopes: list[str]
    requires_signature: bool
    rate_limit_per_minute: int
    expires_at: datetime | None

    def public(self) -> dict:
        return {"key_id": self.key_id, "token": self.token, "name": self.name,
                "environment": self.environment, "requires_signature": self.requires_signature,
                "scopes": self.scopes, "rate_limit_per_minute": self.rate_limit_per_minute,
                "expires_at": self.expires_at.isoformat() if self.expires_at else None}


# Not announced to the key caches (auth/keycache.py): a new key_id is in no cache (only rows
# that exist are copied), and no other key's row changes. An announcement could only fail the
# command after the key was committed, with its token not shown.
def issue_key(conn: psycopg.Connection, vault: credentials.SigningVault, *, partner_code: str,
              name: str, environment: str, preset: str, extra_scopes=(),
              signed: bool | None = None, rate_limit: int = DEFAULT_RATE_LIMIT_PER_MINUTE,
              expires_at: datetime | None = None) -> IssuedKey:
    partner = known_partner(conn, partner_code)
    if not 1 <= rate_limit <= 100000:
        raise KeyIssueError("--rate-limit must be between 1 and 100000 requests per minute")
    if expires_at is not None and expires_at.tzinfo is None:
        raise KeyIssueError("--expires-at needs a UTC offset, e.g. 2027-01-31T00:00:00+00:00")
    scopes = scopes_for(preset, tuple(extra_scopes))
    requires_signature = preset in SIGNED_BY_DEFAULT if signed is None else signed
    key_id = credentials.new_key_id(environment)
    secret = credentials.new_secret()
    row = queries().operator.insert_key(
        conn, key_id=key_id, partner_id=partner["id"], name=name, environment=environment,
        secret_hash=credentials.hash_secret(secret), signing_secret=vault.seal(secret),
        signing_secret_key_id=vault.sealed_by,
        scopes=scopes, requires_signature=requires_signature, rate_limit_per_minute=rate_limit,
        expires_at=expires_at)
    return IssuedKey(key_id=row["key_id"], token=f"{key_id}.{secret}", name=row["name"],
                     environment=row["environment"], scopes=list(row["scopes"]),
                     requires_signature=row["requires_signature"],
                     rate_limit_per_minute=row["rate_limit_per_minute"],
                     expires_at=row["expires_at"])


@announces(KEY_STATE_CHANGED)  # the next request must see it, in every web process
def revoke_key(conn: psycopg.Connection, key_id: str) -> dict | None:
    return queries().operator.revoke_key(conn, key_id=key_id)


def list_keys(conn: psycopg.Connection, partner_code: str) -> list[dict]:
    known_partner(conn, partner_code)
    return queries().operator.list_keys_of_partner(conn, partner_code=partner_code)
