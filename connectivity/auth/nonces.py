"""Replay protection for signed requests: a (key, nonce) pair is accepted once in the nonce TTL.

Kept in Redis with SET NX, so all web processes see the same nonces. When Redis is unreachable
the check fails closed (503): accepting a nonce that cannot be recorded would allow replays.
"""

from __future__ import annotations

import redis
from redis.exceptions import RedisError

from connectivity.web.errors import ServiceUnavailable


class NonceLedger:
    def __init__(self, client: redis.Redis, prefix: str, ttl_seconds: int):
        self._redis = client
        self._prefix = prefix
        self._ttl = ttl_seconds

    def first_use(self, key_id: str, nonce: str) -> bool:
        try:
            return bool(self._redis.set(f"{self._prefix}nonce:{key_id}:{nonce}", 1,
                                        nx=True, ex=self._ttl))
        except RedisError:
            raise ServiceUnavailable("the replay check is unavailable; retry shortly") from None
