"""The request guards of one app: built once from the settings, used by every request."""

from __future__ import annotations

from dataclasses import dataclass

import redis

from .auth.authenticate import Authenticator
from .auth.credentials import SigningVault
from .auth.nonces import NonceLedger
from .auth.ratelimit import KeyRateLimiter
from .db import Database
from .queries import queries
from .settings import Settings


@dataclass
class Guards:
    authenticator: Authenticator
    rate_limiter: KeyRateLimiter


def build_guards(settings: Settings, db: Database, redis_client: redis.Redis) -> Guards:
    def find_key(key_id: str) -> dict | None:
        with db.connection() as conn:
            return queries().auth.find_key_for_request(conn, key_id=key_id)

    authenticator = Authenticator(
        find_key, SigningVault(settings.secret_key),
        NonceLedger(redis_client, settings.redis_prefix, settings.nonce_ttl_seconds),
        settings.signature_max_skew_seconds)
    return Guards(authenticator, KeyRateLimiter(settings.redis_url, settings.redis_prefix))
