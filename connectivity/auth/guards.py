"""The request guards of one app: built once from the settings, used by every request."""

from __future__ import annotations

from dataclasses import dataclass

import psycopg
import redis
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from connectivity.auth.authenticate import Authenticator
from connectivity.auth.credentials import SigningVault
from connectivity.auth.keycache import KeyCache, KeyGeneration
from connectivity.auth.nonces import NonceLedger
from connectivity.auth.ratelimit import KeyRateLimiter
from connectivity.store.database import RECONNECT_TIMEOUT_SECONDS, LazyPool, SessionConnection, session_options
from connectivity.store.read_fence import ReadFence
from connectivity.store.queries import queries
from connectivity.settings import Settings


class KeyReader:
    """Reads a key from PostgreSQL, in one round trip: for requests the key cache cannot answer
    (auth/keycache.py).

    It has its own small pool rather than the use cases' transactional one, because a lookup on
    every request is where round trips add up: there each borrowing pings the connection
    (`check`) and each read is wrapped in BEGIN and COMMIT, four round trips for one SELECT. A
    single read needs no transaction, so these connections are in autocommit; and a connection
    broken since its last use (a database restart) is found by the read itself, which is then
    tried once more on another connection, instead of by a ping before every read.
    """

    # How its sessions show in pg_stat_activity, apart from the use cases' (`pcs-web`).
    APPLICATION_NAME = "pcs-web-keys"

    def __init__(self, url: str, *, max_size: int, timeout: float, options: str = ""):
        # After a database restart every pooled connection is broken, each found by one read:
        # so many tries, and one more on a fresh connection.
        self._attempts = max_size + 1
        self._pool = LazyPool(url, min_size=1, max_size=max_size, timeout=timeout,
                              reconnect_timeout=RECONNECT_TIMEOUT_SECONDS,
                              name="connectivity-keys",
                              # Behind a transaction pooler these single reads go without the
                              # session settings (docs/operations.md, "PgBouncer").
                              connection_class=SessionConnection,
                              kwargs={"row_factory": dict_row, "autocommit": True,
                                      "options": options,
                                      "application_name": self.APPLICATION_NAME})

    @property
    def pool(self) -> ConnectionPool:
        return self._pool.pool

    def _read(self, query, **params):
        for attempt in range(self._attempts):
            with self._pool.connection() as conn:
                try:
                    return query(conn, **params)
                except psycopg.OperationalError:
                    # Only a connection that broke is worth another try (the pool discards it
                    # when it goes back); a database that is down answers PoolTimeout from the
                    # pool instead, and both are a 503 from the error handlers.
                    if not conn.broken or attempt == self._attempts - 1:
                        raise
        raise AssertionError("unreachable")

    def find_key(self, key_id: str) -> dict | None:
        return self._read(queries().auth.find_key_for_request, key_id=key_id)

    def count_mapped_properties(self, partner_id: int, environment: str) -> int:
        return self._read(queries().auth.count_mapped_properties, partner_id=partner_id,
                          environment=environment)

    def close(self) -> None:
        self._pool.close()


@dataclass
class Guards:
    authenticator: Authenticator
    rate_limiter: KeyRateLimiter
    keys: KeyReader
    key_cache: KeyCache
    key_generation: KeyGeneration
    # Read in the same round trip as the key generation: whether the read copies are current.
    read_fence: ReadFence

    def close(self) -> None:
        self.keys.close()


def build_guards(settings: Settings, redis_client: redis.Redis, read_fence: ReadFence) -> Guards:
    # The guards read keys through a pool of their own (KeyReader), not the use cases', and
    # keep copies confirmed on every request (KeyCache, auth/keycache.py).
    keys = KeyReader(settings.database_url, max_size=settings.db_pool_size,
                     timeout=settings.db_pool_timeout_seconds,
                     options=session_options(settings.db_statement_timeout_seconds,
                                             settings.db_idle_in_transaction_timeout_seconds))
    cache = KeyCache(keys.find_key, ttl_seconds=settings.key_cache_ttl_seconds)
    authenticator = Authenticator(
        cache, keys.count_mapped_properties,
        SigningVault(settings.secret_key, settings.secret_key_previous),
        NonceLedger(redis_client, settings.redis_prefix, settings.nonce_ttl_seconds),
        settings.signature_max_skew_seconds)
    return Guards(authenticator, KeyRateLimiter(settings.redis_url, settings.redis_prefix), keys,
                  cache, KeyGeneration(redis_client, settings.redis_prefix,
                                       settings.key_cache_ttl_seconds), read_fence)
