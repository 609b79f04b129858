"""Per-key rate limits: at most `rate_limit_per_minute` requests in any 60-second window (the
`limits` library's moving window, kept in Redis so every web process shares one count).

If Redis cannot be reached the limit is kept per process instead of not at all: a partner may
then get up to (limit x processes), which is better than an outage or no limit.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import structlog
from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import MovingWindowRateLimiter
from redis.exceptions import RedisError

log = structlog.get_logger(__name__)

WINDOW_SECONDS = 60


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    # Whole seconds until a request would be allowed again (0 when one is allowed now).
    retry_after: int

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Policy": f'"default";q={self.limit};w={WINDOW_SECONDS}',
            "RateLimit": f'"default";r={self.remaining};t={self.retry_after}',
        }


class KeyRateLimiter:
    def __init__(self, redis_url: str, prefix: str):
        storage = storage_from_string(redis_url, key_prefix=f"{prefix}limits",
                                      socket_timeout=1, socket_connect_timeout=1)
        self._shared = MovingWindowRateLimiter(storage)
        self._local = MovingWindowRateLimiter(MemoryStorage())

    def hit(self, key_id: str, limit: int) -> Decision:
        item = RateLimitItemPerMinute(limit)
        try:
            return self._decide(self._shared, item, key_id, limit)
        except (RedisError, OSError) as exc:
            log.warning("rate_limit_degraded", reason=type(exc).__name__)
            return self._decide(self._local, item, key_id, limit)

    @staticmethod
    def _decide(limiter: MovingWindowRateLimiter, item, key_id: str, limit: int) -> Decision:
        allowed = limiter.hit(item, key_id)
        stats = limiter.get_window_stats(item, key_id)
        remaining = max(0, stats.remaining)
        if remaining > 0:
            wait = 0
        else:
            # reset_time is when the oldest request of the window leaves it; the next whole second
            # after that is a wait after which a request is sure to pass.
            wait = max(1, math.floor(stats.reset_time - time.time()) + 1)
        return Decision(allowed, limit, remaining, wait)
