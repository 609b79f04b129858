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
from limits.storage import MemoryStorage, RedisStorage, storage_from_string
from limits.strategies import MovingWindowRateLimiter
from redis.exceptions import NoScriptError, RedisError

from connectivity.adapters.limits_moving_window import MovingWindowScripts, window_start_and_entries

log = structlog.get_logger(__name__)

WINDOW_SECONDS = 60


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    # Whole seconds until a request would be allowed again (0 when one is allowed now).
    retry_after: int
    # False when Redis did not answer and this process's own window decided.
    shared: bool = True

    def headers(self) -> dict[str, str]:
        return {
            "RateLimit-Policy": f'"default";q={self.limit};w={WINDOW_SECONDS}',
            "RateLimit": f'"default";r={self.remaining};t={self.retry_after}',
        }


def decide(allowed: bool, limit: int, remaining: int, reset_time: float,
           shared: bool = True) -> Decision:
    """`remaining` and `reset_time` as the moving window reports them after the hit."""
    remaining = max(0, remaining)
    if remaining > 0:
        wait = 0
    else:
        # reset_time is when the oldest request of the window leaves it; the next whole second
        # after that is a wait after which a request is sure to pass.
        wait = max(1, math.floor(reset_time - time.time()) + 1)
    return Decision(allowed, limit, remaining, wait, shared)


class KeyRateLimiter:
    def __init__(self, redis_url: str, prefix: str):
        storage: RedisStorage = storage_from_string(
            redis_url, key_prefix=f"{prefix}limits", socket_timeout=1, socket_connect_timeout=1)
        self._scripts = MovingWindowScripts(storage)
        self._local = MovingWindowRateLimiter(MemoryStorage())

    def hit(self, key_id: str, limit: int, *, read: tuple[str, ...] = ()
            ) -> tuple[Decision, list[bytes | None]]:
        """The decision, and the values of the Redis keys `read` (their full names; None when
        absent or when Redis did not answer) read in the same round trip, before the hit: the
        key cache confirms its copies with one (`keycache.py`), the read copies with another
        (store/read_fence.py), at no extra round trip."""
        item = RateLimitItemPerMinute(limit)
        try:
            return self._shared_hit(item, key_id, limit, read)
        except (RedisError, OSError) as exc:
            log.warning("rate_limit_degraded", reason=type(exc).__name__)
            allowed = self._local.hit(item, key_id)
            stats = self._local.get_window_stats(item, key_id)
            return (decide(allowed, limit, stats.remaining, stats.reset_time, shared=False),
                    [None] * len(read))

    def _shared_hit(self, item, key_id: str, limit: int, read: tuple[str, ...]
                    ) -> tuple[Decision, list[bytes | None]]:
        """`MovingWindowRateLimiter.hit` then `.get_window_stats`, as the library runs them (its
        own two Lua scripts, with the arguments its RedisStorage passes), but sent together in
        one pipeline: one round trip per request instead of two. The scripts run in order on one
        connection, so the count is the window just after this hit (another process's hit may
        land in between, as it could between the two calls). The library internals this needs
        are in adapters/limits_moving_window.py."""
        scripts = self._scripts
        key = scripts.key(item, key_id)
        expiry = item.get_expiry()
        now = time.time()
        value, acquired, window = scripts.acquire_and_count(key, now, limit, expiry, read)
        # Redis loses its script cache on a restart or SCRIPT FLUSH. Whatever ran still counts:
        # a hit that did not run is sent again, a count that did not run is asked again, so a
        # request is never counted twice.
        if isinstance(acquired, NoScriptError):
            scripts.load()
            value, acquired, window = scripts.acquire_and_count(key, now, limit, expiry, read)
        if isinstance(window, NoScriptError):
            scripts.load()
            window = scripts.count(key, now, limit, expiry)
        for result in (value, acquired, window):
            if isinstance(result, Exception):
                raise result
        start, entries = window_start_and_entries(window, now)
        return (decide(bool(acquired), limit, limit - entries, start + expiry),
                list(value) if read else [])
