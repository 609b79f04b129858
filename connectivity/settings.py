"""Settings read once from the environment; a missing required value stops start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping


class SettingsError(RuntimeError):
    pass


# gunicorn's threads per web process (gunicorn.conf.py) unless WEB_THREADS says otherwise.
DEFAULT_WEB_THREADS = 4


def web_threads(env: Mapping[str, str]) -> int:
    return int(env.get("WEB_THREADS") or DEFAULT_WEB_THREADS)


@dataclass(frozen=True)
class Settings:
    database_url: str
    redis_url: str
    secret_key: str
    # Keys SECRET_KEY replaced, still accepted while a rotation runs (docs/operations.md,
    # "Rotating SECRET_KEY"): they open signing secrets sealed before it and verify quote tokens
    # and feed cursors signed before it; everything new is sealed and signed with secret_key.
    secret_key_previous: tuple[str, ...] = ()
    # `privacy purge` replaces the personal fields of stays that ended more days ago than this
    # (docs/operations.md, "Guest data that expires").
    privacy_purge_after_days: int = 365
    # A hotel booking whose current status its receiver has not acknowledged for this long is
    # overdue (`hotel-bookings overdue`; docs/operations.md, "Hotel bookings nobody
    # acknowledged").
    hotel_ack_deadline_seconds: int = 1800
    quote_ttl_seconds: int = 900
    max_body_bytes: int = 8 * 1024 * 1024
    db_pool_size: int = 8
    db_pool_timeout_seconds: float = 5.0
    # Connections to Redis a web process may hold at once (a request needs one at a time);
    # None: as many as asked for.
    redis_pool_size: int | None = None
    # What PostgreSQL lets one statement run, and one transaction sit idle, before it cuts them
    # off (db.session_options). A web request's statements are short; a worker's apply of a
    # 5,000-item batch runs far longer, so it gets more room before a stuck lock ends it.
    db_statement_timeout_seconds: float = 15.0
    worker_statement_timeout_seconds: float = 120.0
    db_idle_in_transaction_timeout_seconds: float = 30.0
    # Every Redis key the service writes starts with this, so that a shared Redis (or a test run)
    # keeps its keys apart.
    redis_prefix: str = "pcs:"
    log_level: str = "INFO"
    # A partner's request is rejected when its clock is further off than this.
    signature_max_skew_seconds: int = 300
    nonce_ttl_seconds: int = 600
    # The worker enqueues again an unfinished ARI batch this old whose job Redis lost.
    ari_stranded_after_seconds: int = 60
    # Small ARI batches one worker process applies per second on this deployment's machines
    # (docs/operations.md 3.1): /metrics turns the accepted rate into workers needed with it.
    ari_worker_batches_per_second: float = 1000.0
    # When set, GET /metrics answers only `Authorization: Bearer <metrics_token>`.
    metrics_token: str | None = None
    # Where partners reach the service (scheme, host, and a path prefix if a proxy adds one),
    # without a trailing '/': the origin of the absolute links answers carry (`error.doc_url`).
    # None: each request's own origin, as its Host header and scheme give it.
    public_base_url: str | None = None
    # How long a web process may keep a copy of a key's row (auth/keycache.py); 0 turns the
    # copies off. Revocation is immediate either way; this bounds only a change whose
    # announcement to Redis failed (the operator CLI says so and exits non-zero).
    key_cache_ttl_seconds: float = 10.0
    # A streaming replica for the reads that decide nothing (connectivity/store/replica.py); None: every
    # read goes to database_url. Reads go back to the primary while the replica lags more than
    # read_max_lag_seconds or cannot be reached.
    database_read_url: str | None = None
    read_max_lag_seconds: float = 5.0
    # When a failed webhook delivery is tried again (contract 12.3): each retry this many seconds
    # after the one before, so the default's last comes about 27.6 hours after the first
    # attempt; after the last the delivery is `failed` (webhooks/schedule.py).
    webhook_retry_schedule: tuple[int, ...] = (5, 300, 1800, 7200, 18000, 36000, 36000)
    # Requests a webhook worker process has in flight at once; at most so many to one endpoint,
    # and to the endpoints of one partner in one environment (its share: however many and however
    # slow its endpoints, the rest of the senders stay free for the others: docs/operations.md,
    # "Webhooks").
    webhook_worker_concurrency: int = 32
    webhook_endpoint_concurrency: int = 4
    webhook_partner_concurrency: int = 8
    # Webhooks to loopback addresses (sandbox keys only): the service's own machine, which only a
    # local demo (`make run`) should let a partner reach.
    webhook_allow_loopback: bool = False
    # A connection that bypasses a transaction pooler in front of database_url, for the
    # migrations that cannot run in a transaction (operator/migrations.py).
    database_direct_url: str | None = None
    # Search answered from the web process's read model (availability/read_model/); off:
    # every search runs the reference statement (search.sql).
    search_read_model: bool = True
    # "background": a hotel the model lacks is answered by the statement and loaded by a thread
    # for the next searches; "inline": loaded before answering (tests, small catalogues).
    search_model_loading: str = "background"
    # The longest the model goes without a catch-up with the change log when the read fence did
    # not move (store/read_fence.py): it bounds only what a writer that died between its commit
    # and its move can hide. 0: every search and rates request catches up first.
    search_model_refresh_seconds: float = 1.0
    # Load every property into the model when the process starts, rather than as searched.
    search_model_preload: bool = False
    # The most properties one web process's model holds (0: no bound), about 58 KB each at
    # 30 offers and 400 days (docs/operations.md 6.5).
    search_model_max_properties: int = 0
    # Days the model holds from yesterday on (memory grows with them); a stay that ends past
    # them is searched by the statement.
    search_model_window_days: int = 400
    # Connections that load hotels into the model side by side (each reads and builds a batch
    # while the others wait on the database): a cold start is bounded by the database's cores.
    search_model_load_connections: int = 2
    # The model host writes its copy to the database when the newest stored one is older than
    # this (checked once a minute, or this often when shorter), and a host that starts empty
    # reads the newest one instead of every hotel's days (read_model/snapshots.py;
    # docs/operations.md 6.5, "Cold start"). 0: none are written or read.
    search_model_snapshot_seconds: float = 900.0
    # One model host for the machine, started by gunicorn's master (shared_search_model below);
    # off: each web process holds its own model.
    search_model_shared: bool = True
    # With the model host: its workers read rates from its arrays, mapped, without a hop
    # whenever those reflect every write acknowledged before the read (read_model/mapped.py);
    # off: every rates read asks the host.
    search_model_mapped: bool = True
    # Where the machine's model host listens (read_model/host.py): set by the gunicorn master
    # that started it, for its workers, when SEARCH_MODEL_SHARED is on. Empty: the process
    # holds its own model.
    search_model_socket: str = ""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if environ is None else environ
        missing = [n for n in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY") if not env.get(n)]
        if missing:
            raise SettingsError(
                "missing required setting(s): " + ", ".join(missing)
                + " (`make run` starts embedded PostgreSQL and Redis and sets them for you)"
            )
        if len(env["SECRET_KEY"]) < 32:
            raise SettingsError("SECRET_KEY must be at least 32 characters of random material")
        previous = _previous_secret_keys(env)
        try:
            settings = cls(
                database_url=env["DATABASE_URL"],
                redis_url=env["REDIS_URL"],
                secret_key=env["SECRET_KEY"],
                secret_key_previous=previous,
                privacy_purge_after_days=int(env.get("PRIVACY_PURGE_AFTER_DAYS", 365)),
                hotel_ack_deadline_seconds=int(env.get("HOTEL_ACK_DEADLINE_SECONDS", 1800)),
                quote_ttl_seconds=int(env.get("QUOTE_TTL_SECONDS", 900)),
                max_body_bytes=int(env.get("MAX_BODY_BYTES", 8 * 1024 * 1024)),
                # A web process runs WEB_THREADS requests at once and each holds one database
                # and one Redis connection at a time: more would only sit idle.
                db_pool_size=int(env.get("DB_POOL_SIZE") or web_threads(env)),
                redis_pool_size=int(env.get("REDIS_POOL_SIZE") or web_threads(env)),
                db_statement_timeout_seconds=float(env.get("DB_STATEMENT_TIMEOUT_SECONDS", 15)),
                worker_statement_timeout_seconds=float(
                    env.get("WORKER_STATEMENT_TIMEOUT_SECONDS", 120)),
                db_idle_in_transaction_timeout_seconds=float(
                    env.get("DB_IDLE_IN_TRANSACTION_TIMEOUT_SECONDS", 30)),
                db_pool_timeout_seconds=float(env.get("DB_POOL_TIMEOUT_SECONDS", 5)),
                redis_prefix=env.get("REDIS_PREFIX", "pcs:"),
                log_level=env.get("LOG_LEVEL", "INFO").upper(),
                ari_stranded_after_seconds=int(env.get("ARI_STRANDED_AFTER_SECONDS", 60)),
                ari_worker_batches_per_second=float(
                    env.get("ARI_WORKER_BATCHES_PER_SECOND", 1000)),
                metrics_token=env.get("METRICS_TOKEN") or None,
                public_base_url=public_base_url(env),
                key_cache_ttl_seconds=float(env.get("KEY_CACHE_TTL_SECONDS", 10)),
                database_read_url=_connection_url(env, "DATABASE_READ_URL"),
                read_max_lag_seconds=float(env.get("READ_MAX_LAG_SECONDS", 5)),
                database_direct_url=_connection_url(env, "DATABASE_DIRECT_URL"),
                webhook_retry_schedule=_retry_schedule(env),
                webhook_worker_concurrency=int(env.get("WEBHOOK_WORKER_CONCURRENCY", 32)),
                webhook_endpoint_concurrency=int(env.get("WEBHOOK_ENDPOINT_CONCURRENCY", 4)),
                webhook_partner_concurrency=_partner_share(env),
                webhook_allow_loopback=_switch(env, "WEBHOOK_ALLOW_LOOPBACK", False),
                search_read_model=env.get("SEARCH_READ_MODEL", "on").lower()
                not in ("off", "0", "false", "no"),
                search_model_loading=env.get("SEARCH_MODEL_LOADING", "background"),
                search_model_refresh_seconds=float(env.get("SEARCH_MODEL_REFRESH_SECONDS", 1.0)),
                search_model_preload=env.get("SEARCH_MODEL_PRELOAD", "off").lower()
                in ("on", "1", "true", "yes"),
                search_model_max_properties=int(env.get("SEARCH_MODEL_MAX_PROPERTIES", 0)),
                search_model_window_days=int(env.get("SEARCH_MODEL_WINDOW_DAYS", 400)),
                search_model_load_connections=int(env.get("SEARCH_MODEL_LOAD_CONNECTIONS", 2)),
                search_model_snapshot_seconds=float(
                    env.get("SEARCH_MODEL_SNAPSHOT_SECONDS", 900)),
                search_model_shared=_switch(env, "SEARCH_MODEL_SHARED", True),
                search_model_mapped=_switch(env, "SEARCH_MODEL_MAPPED", True),
                search_model_socket=env.get("SEARCH_MODEL_SOCKET", ""),
            )
        except ValueError as exc:
            raise SettingsError(f"invalid numeric setting: {exc}") from None
        if min(settings.db_pool_size, settings.redis_pool_size or 1) < 1:
            raise SettingsError("DB_POOL_SIZE and REDIS_POOL_SIZE must be at least 1")
        if min(settings.db_statement_timeout_seconds, settings.worker_statement_timeout_seconds,
               settings.db_idle_in_transaction_timeout_seconds) <= 0:
            raise SettingsError("the DB_*_TIMEOUT_SECONDS settings must be more than 0")
        if settings.key_cache_ttl_seconds < 0:
            raise SettingsError("KEY_CACHE_TTL_SECONDS must be 0 (no key cache) or more")
        if settings.ari_worker_batches_per_second <= 0:
            raise SettingsError("ARI_WORKER_BATCHES_PER_SECOND must be more than 0")
        if settings.read_max_lag_seconds <= 0:
            raise SettingsError("READ_MAX_LAG_SECONDS must be more than 0")
        if settings.quote_ttl_seconds < 1:
            raise SettingsError("QUOTE_TTL_SECONDS must be at least 1 (a quote token's validity)")
        if not (1 <= settings.webhook_endpoint_concurrency <= settings.webhook_partner_concurrency
                <= settings.webhook_worker_concurrency):
            raise SettingsError("WEBHOOK_ENDPOINT_CONCURRENCY must be at least 1, at most "
                                "WEBHOOK_PARTNER_CONCURRENCY, itself at most "
                                "WEBHOOK_WORKER_CONCURRENCY")
        if settings.search_model_loading not in ("background", "inline"):
            raise SettingsError("SEARCH_MODEL_LOADING must be background or inline")
        if not 0 <= settings.search_model_refresh_seconds <= 60:
            raise SettingsError("SEARCH_MODEL_REFRESH_SECONDS must be 0 to 60")
        if not 2 <= settings.search_model_window_days <= 1000:
            raise SettingsError("SEARCH_MODEL_WINDOW_DAYS must be 2 to 1000")
        if not 1 <= settings.search_model_load_connections <= 16:
            raise SettingsError("SEARCH_MODEL_LOAD_CONNECTIONS must be 1 to 16")
        if not 0 <= settings.search_model_snapshot_seconds <= 86400:
            raise SettingsError("SEARCH_MODEL_SNAPSHOT_SECONDS must be 0 to 86400")
        if settings.privacy_purge_after_days < 1:
            raise SettingsError("PRIVACY_PURGE_AFTER_DAYS must be at least 1")
        if settings.hotel_ack_deadline_seconds < 1:
            raise SettingsError("HOTEL_ACK_DEADLINE_SECONDS must be at least 1")
        return settings

    @property
    def secret_keys(self) -> tuple[str, ...]:
        """Every SECRET_KEY a signature may verify under, the current one last (itsdangerous
        signs with the last of a list)."""
        return (*self.secret_key_previous, self.secret_key)


def _previous_secret_keys(env: Mapping[str, str]) -> tuple[str, ...]:
    """SECRET_KEY_PREVIOUS: comma-separated keys (a key holds no comma), each as long as
    SECRET_KEY must be; the current key listed again is ignored."""
    keys = [k.strip() for k in (env.get("SECRET_KEY_PREVIOUS") or "").split(",") if k.strip()]
    if any(len(k) < 32 for k in keys):
        raise SettingsError("each key of SECRET_KEY_PREVIOUS (comma-separated) must be at least "
                            "32 characters, as SECRET_KEY")
    return tuple(dict.fromkeys(k for k in keys if k != env["SECRET_KEY"]))


def _partner_share(env: Mapping[str, str]) -> int:
    if env.get("WEBHOOK_PARTNER_CONCURRENCY"):
        return int(env["WEBHOOK_PARTNER_CONCURRENCY"])
    return default_partner_share(int(env.get("WEBHOOK_WORKER_CONCURRENCY", 32)),
                                 int(env.get("WEBHOOK_ENDPOINT_CONCURRENCY", 4)))


def default_partner_share(concurrency: int, per_endpoint: int) -> int:
    """WEBHOOK_PARTNER_CONCURRENCY unset: a quarter of the worker's senders, and room for two
    endpoints' (one slow endpoint leaves the partner's others as many), within the worker's:
    8 of 32 by default."""
    return min(concurrency, max(2 * per_endpoint, concurrency // 4))


def _switch(env: Mapping[str, str], name: str, default: bool) -> bool:
    """An on/off setting; anything else stops start-up rather than guess."""
    text = (env.get(name) or "").strip().lower()
    if not text:
        return default
    if text in ("on", "true", "yes", "1"):
        return True
    if text in ("off", "false", "no", "0"):
        return False
    raise SettingsError(f"{name} must be on or off")


def shared_search_model(env: Mapping[str, str]) -> bool:
    """Whether gunicorn's master starts one model host for all its workers (SEARCH_MODEL_SHARED,
    on unless off; nothing to host when SEARCH_READ_MODEL is off)."""
    return _switch(env, "SEARCH_READ_MODEL", True) and _switch(env, "SEARCH_MODEL_SHARED", True)


def public_base_url(env: Mapping[str, str]) -> str | None:
    """PUBLIC_BASE_URL: an http(s) URL with a host, perhaps a path, no query or fragment."""
    from urllib.parse import urlsplit
    value = (env.get("PUBLIC_BASE_URL") or "").strip()
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise SettingsError("PUBLIC_BASE_URL must be an http(s) URL with a host and no query or "
                            f"fragment, e.g. https://api.example.com, not {value!r}")
    return value.rstrip("/")


def _retry_schedule(env: Mapping[str, str]) -> tuple[int, ...]:
    """WEBHOOK_RETRY_SCHEDULE: the delays between attempts, seconds, comma-separated."""
    text = env.get("WEBHOOK_RETRY_SCHEDULE") or "5,300,1800,7200,18000,36000,36000"
    try:
        schedule = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise SettingsError("WEBHOOK_RETRY_SCHEDULE must be whole seconds, comma-separated "
                            f"(for example 5,300,1800), not {text!r}") from None
    if not schedule or any(s < 1 for s in schedule):
        raise SettingsError("WEBHOOK_RETRY_SCHEDULE must be delays of at least 1 second")
    return schedule


def _connection_url(env: Mapping[str, str], name: str) -> str | None:
    """An optional PostgreSQL URL, checked for form at start-up (whether it answers is found
    out on use): a typo stops the service here rather than at the first read."""
    value = env.get(name) or None
    if value is None:
        return None
    from psycopg.conninfo import conninfo_to_dict
    try:
        params = conninfo_to_dict(value)
    except Exception as exc:  # psycopg.ProgrammingError, with libpq's reason
        raise SettingsError(f"{name} is not a valid PostgreSQL connection URL "
                            f"(postgresql://user@host:port/database): "
                            f"{str(exc).splitlines()[0]}") from None
    # libpq reads the port only when it connects: a port that is not a number is caught here.
    ports = str(params.get("port") or "").split(",")
    if not all(port.isdigit() for port in ports if port):
        raise SettingsError(f"{name} has a port that is not a number: {params['port']!r}")
    return value
