"""In-process copies of key rows, so that most requests need not read their key from PostgreSQL,
while "revoking a key takes effect for the next request" (contract section 2) still holds.

How a copy is kept honest. Redis holds a key-state *generation*: an opaque random token that
every operator change of what an existing key's row holds (a revocation, a catalogue load:
`Database.run` announces them, `connectivity/store/database.py`) replaces after its commit. Issuing a key and
pausing or resuming distribution change no such row (docs/operations.md 5.3).
A copy is filed under the generation read *before* the PostgreSQL read that produced it, and is
used only when the generation read in the request's own Redis round trip (the rate limit's
pipeline, `KeyRateLimiter.hit`) equals it. Why that is enough:

- A change commits in PostgreSQL, then replaces the generation. A request that starts after the
  operator's command returned reads the new generation in its round trip, so every copy filed
  before the change mismatches and the row is read again from PostgreSQL: the next request sees
  the change, in every process, since the generation lives in the Redis they share.
- Revoked between fill and use: the copy was filed under G (read before the fill's PostgreSQL
  read); the revocation's replacement G -> G' lands after its commit, so a request after it reads
  G' != G. Had the fill's read come after the commit, the copy is revoked already, which is
  merely fresher than G.
- Generation read after the PostgreSQL read (never done): the row could predate a change whose
  generation it would then carry. So a fill uses the latest generation this process had *already*
  read before it started the PostgreSQL read; an older one only costs a refill.
- Tokens, not a counter: Redis may lose the key (a restart without persistence, a flush). A
  counter would start again at 1 and could come back to a value a stale copy carries; a random
  token never repeats. While the key is missing no copy is used, and the first request that
  finds it missing sets a new token.
- Redis unreachable: the round trip fails, so nothing confirms a copy: the row is read from
  PostgreSQL, as without the cache. The operator CLI exits non-zero when it could not replace the
  generation (the change itself is committed), and every copy is also dropped after
  `KEY_CACHE_TTL_SECONDS`, which bounds how long such a missed announcement can be ignored.
- A copy only ever admits a request. Any refusal found on a copy (wrong secret, expired,
  signature, replayed nonce) is decided again on the row as PostgreSQL has it now, so its code is
  the one the contract's order gives (a just-revoked key gets `key_revoked`). Expiry is checked
  against the clock on every request, copy or not.
- The one effect of confirming after the round trip: a request whose copy turns out stale has
  already counted one hit in the key's window before it is refused. Only a revocation can turn an
  admitted key into a refused one, and a revoked key is never admitted again, so no partner can
  see that count.

The copy is the row as PostgreSQL has it (the secret's hash and the sealed signing secret, never
a presented secret), in this process's memory only.
"""

from __future__ import annotations

import threading
import time
import uuid
from dataclasses import dataclass
from typing import Callable

import redis
import structlog
from redis.exceptions import RedisError

log = structlog.get_logger(__name__)

# The event `Database.run` announces after a use case marked with it commits.
KEY_STATE_CHANGED = "key-state-changed"


def generation_key(prefix: str) -> str:
    return f"{prefix}keys:generation"


class KeyStateNotAnnounced(RuntimeError):
    """The change is committed, but the web processes' key caches were not told."""


class KeyGeneration:
    """The key-state generation in Redis, for those who change key state (replace it) and for
    the guards (set one when Redis has none)."""

    def __init__(self, client: redis.Redis, prefix: str, cache_ttl_seconds: float):
        self._redis = client
        self.key = generation_key(prefix)
        self._ttl = cache_ttl_seconds

    def replace(self) -> None:
        try:
            self._redis.set(self.key, uuid.uuid4().hex)
        except (RedisError, OSError) as exc:
            raise KeyStateNotAnnounced(
                f"the web processes' key caches could not be told ({type(exc).__name__}: "
                f"Redis unreachable?); they may act on the previous state for up to "
                f"{self._ttl:g} s. Run the command again once Redis answers, or restart the web "
                "processes") from None

    def establish(self) -> None:
        """After Redis lost the generation: a new token (NX: whoever sets one first wins)."""
        try:
            self._redis.set(self.key, uuid.uuid4().hex, nx=True)
        except (RedisError, OSError) as exc:
            log.warning("key_generation_not_established", reason=type(exc).__name__)


@dataclass(frozen=True)
class KeyLookup:
    """A key's row (None: no such key), where it came from, and the generation it is filed
    under: for a copy, the one it was filled under; for a PostgreSQL read, the latest this process
    had read before the read began (None when it had none)."""
    row: dict | None
    cached: bool
    generation: bytes | None


@dataclass(frozen=True)
class _Copy:
    row: dict
    generation: bytes
    expires: float  # time.monotonic()


class KeyCache:
    def __init__(self, read: Callable[[str], dict | None], *, ttl_seconds: float,
                 max_entries: int = 10_000):
        self._read = read
        self._ttl = ttl_seconds
        self._max = max_entries
        self._copies: dict[str, _Copy] = {}
        self._lock = threading.Lock()
        # The latest generation any request of this process read. A fill files its row under
        # the value this held before the PostgreSQL read began; threads may overwrite it with an
        # older read, which only makes a copy mismatch sooner.
        self._latest: bytes | None = None

    @property
    def enabled(self) -> bool:
        return self._ttl > 0

    def lookup(self, key_id: str) -> KeyLookup:
        copy = self._copies.get(key_id)
        if copy is not None and copy.expires > time.monotonic():
            return KeyLookup(copy.row, True, copy.generation)
        return self.fresh(key_id)

    def fresh(self, key_id: str) -> KeyLookup:
        generation = self._latest  # read before the row: see the module's docstring
        return KeyLookup(self._read(key_id), False, generation)

    def refresh(self, key_id: str) -> KeyLookup:
        """A fresh read that also replaces the key's copy (a refusal found on a copy: the row
        that refused is the one later requests should see)."""
        lookup = self.fresh(key_id)
        if lookup.row is None:
            with self._lock:
                self._copies.pop(key_id, None)
        elif self.enabled and lookup.generation is not None and key_id in self._copies:
            self._file(key_id, lookup.row, lookup.generation)
        return lookup

    def settle(self, key_id: str, lookup: KeyLookup, generation: bytes | None) -> KeyLookup:
        """After the request's Redis round trip read `generation` (None: Redis did not answer,
        or has no generation): the lookup to act on. A copy whose generation differs is replaced
        by a fresh read, which the caller must check again; a fresh row is filed for later
        requests."""
        if generation is None:
            # Nothing confirms a copy, and nothing could confirm one filed now.
            return self.fresh(key_id) if lookup.cached else lookup
        self._latest = generation
        if lookup.cached:
            if generation == lookup.generation:
                return lookup
            lookup = self.fresh(key_id)  # filed under `generation`, read just before it
        if lookup.row is None:
            with self._lock:
                self._copies.pop(key_id, None)
        elif self.enabled and lookup.generation == generation:
            # Filed under the generation read before the row (not `generation`, read after
            # it); when the two differ the copy could never be confirmed, so it is not kept.
            self._file(key_id, lookup.row, lookup.generation)
        return lookup

    def _file(self, key_id: str, row: dict, generation: bytes) -> None:
        with self._lock:
            if key_id not in self._copies and len(self._copies) >= self._max:
                # Oldest first (dicts keep insertion order): the cache stays bounded whatever
                # the number of keys; an evicted key is only read again.
                self._copies.pop(next(iter(self._copies)))
            self._copies[key_id] = _Copy(row, generation, time.monotonic() + self._ttl)
