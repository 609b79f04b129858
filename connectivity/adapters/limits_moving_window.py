"""`limits` private internals: RedisStorage's two moving-window Lua scripts, sent together.

`MovingWindowRateLimiter.hit` then `.get_window_stats` (the public API) cost two Redis round
trips per request; sending the library's own two scripts in one pipeline costs one. That needs
RedisStorage internals, relied on here only (limits 5.8), and guarded by
tests/adapters/test_library_internals.py:

- `RedisStorage.prefixed_key(key)`, the key the library stores a window under;
- `lua_acquire_moving_window`: KEYS [key], ARGV [now, limit, expiry, amount], 1 when acquired;
- `lua_moving_window`: KEYS [key], ARGV [now - expiry, limit], [oldest entry, entries] or empty;
- both are redis-py `Script`s (`.sha`, `.script`), and `get_connection()` is the storage's client.
"""

from __future__ import annotations

from limits import RateLimitItem
from limits.storage import RedisStorage


class MovingWindowScripts:
    def __init__(self, storage: RedisStorage):
        self._storage = storage

    def key(self, item: RateLimitItem, identifier: str) -> str:
        """The Redis key the library keeps `identifier`'s window of `item` under."""
        return self._storage.prefixed_key(item.key_for(identifier))

    def acquire_and_count(self, key: str, now: float, limit: int, expiry: int,
                          read: tuple[str, ...] | None) -> list:
        """[MGET the keys `read` (None when not asked), acquire one entry, count the window] in
        one pipeline; errors (a NoScriptError among them) come back in place of results."""
        storage = self._storage
        pipe = storage.get_connection().pipeline(transaction=False)
        if read:
            pipe.mget(read)
        pipe.evalsha(storage.lua_acquire_moving_window.sha, 1, key, now, limit, expiry, 1)
        pipe.evalsha(storage.lua_moving_window.sha, 1, key, now - expiry, limit)
        results = pipe.execute(raise_on_error=False)
        return results if read else [None, *results]

    def count(self, key: str, now: float, limit: int, expiry: int) -> list:
        """The window alone, as `acquire_and_count`'s last result."""
        return self._storage.lua_moving_window([key], [now - expiry, limit])

    def load(self) -> None:
        """Load both scripts again (Redis forgets them on a restart or SCRIPT FLUSH)."""
        connection = self._storage.get_connection()
        for script in (self._storage.lua_acquire_moving_window, self._storage.lua_moving_window):
            connection.script_load(script.script)


def window_start_and_entries(window: list, now: float) -> tuple[float, int]:
    """As RedisStorage.get_moving_window: (oldest entry, entries), or (now, 0) when empty."""
    return (float(window[0]), int(window[1])) if window else (now, 0)
