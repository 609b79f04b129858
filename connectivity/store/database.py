"""PostgreSQL access: one connection pool per process, and the transaction helper every use case
runs through.

The pool is created closed and opens on first use, which under gunicorn is always after the fork:
a pool opened in the master would hand the same sockets to every worker.
"""

from __future__ import annotations

import random
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

import psycopg
from psycopg import errors as pg_errors
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from connectivity.store.queries import queries
from connectivity.store.read_fence import naming

T = TypeVar("T")
F = TypeVar("F", bound=Callable)

# Failures where PostgreSQL rolled the transaction back and asks the client to run it again.
RETRYABLE = (pg_errors.SerializationFailure, pg_errors.DeadlockDetected)
# How long the pool keeps retrying one lost connection. psycopg_pool's own retries double their
# delay (1, 2, 4, 8 s...) for up to 5 minutes, so a database back after an outage of N seconds
# would be used again only up to N seconds later, every request meanwhile a 503. Giving up
# early costs nothing: the next request that finds the pool short starts a fresh attempt, which
# connects at once (tests/system/faults).
RECONNECT_TIMEOUT_SECONDS = 2.0


class LazyPool:
    """A psycopg pool created closed and opened on first use: under gunicorn that is always
    after the fork, so no two workers share a socket."""

    def __init__(self, url: str, **options):
        self._lock = threading.Lock()
        self._opened = False
        self.pool = ConnectionPool(url, open=False, **options)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        if not self._opened:
            with self._lock:
                if not self._opened:
                    self.pool.open(wait=False)
                    self._opened = True
        with self.pool.connection() as conn:
            yield conn

    def close(self) -> None:
        if self._opened:
            self.pool.close()
            self._opened = False


def announces(*events: str) -> Callable[[F], F]:
    """Mark a use case whose committed changes others must hear of: `Database.run` calls the
    events' listeners after the transaction commits (so they never announce what may still roll
    back). The key cache's invalidation is such an event (auth/keycache.py), and so is the read
    fence's move (store/read_fence.py)."""
    def mark(use_case: F) -> F:
        use_case.announces = events
        return use_case
    return mark


class SessionConnection(psycopg.Connection):
    """A connection that knows whether it reaches PostgreSQL directly or through a
    transaction-pooling PgBouncer.

    PgBouncer refuses the startup parameter `options` (which carries our session settings) with
    "unsupported startup parameter: options". Such a connection is made again without it and
    marked `behind_pooler`: `Database` then sets those settings per transaction
    (sql/queries/store/transaction_settings.sql), and psycopg's automatic server-side preparing
    is turned off, since a statement prepared on one server connection is unknown on the next
    one PgBouncer hands out (PgBouncer 1.18, Debian bookworm's, does not track prepared
    statements). Once a URL is known to go through a pooler, its next connections skip the
    refused attempt."""

    behind_pooler = False

    @classmethod
    def connect(cls, conninfo: str = "", **kwargs):
        pooled = conninfo in _POOLED_URLS
        if kwargs.get("options") and not pooled:
            try:
                return super().connect(conninfo, **kwargs)
            except psycopg.OperationalError as exc:
                if "unsupported startup parameter" not in str(exc):
                    raise
                _POOLED_URLS.add(conninfo)
                pooled = True
        if pooled:
            kwargs.pop("options", None)
            kwargs["prepare_threshold"] = None
        conn = super().connect(conninfo, **kwargs)
        conn.behind_pooler = pooled
        return conn


# URLs found to lead to a transaction pooler, in this process.
_POOLED_URLS: set[str] = set()


def behind_pooler(url: str) -> bool:
    """Whether `url` leads to a pooler that refuses session settings (one connection to find
    out, unless this process knows already)."""
    with SessionConnection.connect(url, options="-c jit=off", autocommit=True) as conn:
        return conn.behind_pooler


def unpooled_connection(url: str, **options) -> psycopg.Connection:
    """A connection of its own, outside every pool, for the operator's schema work: `db
    upgrade` and `citus distribute` hold an advisory lock and session settings across many
    statements and transactions, and run DDL that no pool's statement timeout may cut short.
    A transaction pooler hands each transaction another server session: what needs the session
    itself runs on DATABASE_DIRECT_URL where one sits in front of DATABASE_URL. Requests and
    jobs never use it: they go through `Database`. `options` are psycopg.connect's."""
    return psycopg.connect(url, **options)


def session_options(statement_timeout_seconds: float | None,
                    idle_in_transaction_timeout_seconds: float | None) -> str:
    """The server settings every connection of a pool starts with, as a startup `options`
    string: no round trip per connection or per transaction.

    No JIT: our statements are short and planned with cost estimates that can cross
    jit_above_cost; compiling a statement such as the search can cost many times its run
    (docs/benchmarks-history.md, "The search statement"). The timeouts
    bound what one request or job can hold: a statement stuck behind a lock, or a transaction
    left open by a stalled process, is cut off by PostgreSQL instead of holding its locks and
    its connection (the caller gets an OperationalError: a 503 on the web, a retry in the
    worker). None leaves the server's own setting."""
    options = ["-c jit=off"]
    for name, seconds in (("statement_timeout", statement_timeout_seconds),
                          ("idle_in_transaction_session_timeout",
                           idle_in_transaction_timeout_seconds)):
        if seconds is not None:
            options.append(f"-c {name}={int(seconds * 1000)}")
    return " ".join(options)


def _milliseconds(seconds: float | None) -> str | None:
    return None if seconds is None else str(int(seconds * 1000))


class Database:
    def __init__(self, url: str, *, max_size: int = 8, timeout: float = 5.0, retries: int = 5,
                 application_name: str = "pcs-web",
                 statement_timeout_seconds: float | None = None,
                 idle_in_transaction_timeout_seconds: float | None = None):
        self._retries = retries
        self._timeouts_ms = {
            "statement_timeout": _milliseconds(statement_timeout_seconds),
            "idle_in_transaction_session_timeout": _milliseconds(
                idle_in_transaction_timeout_seconds)}
        self._listeners: dict[str, list[Callable[[], None]]] = {}
        self._url = url
        self._options = session_options(statement_timeout_seconds,
                                        idle_in_transaction_timeout_seconds)
        self._pool = LazyPool(
            url,
            min_size=1,
            reconnect_timeout=RECONNECT_TIMEOUT_SECONDS,
            max_size=max_size,
            timeout=timeout,
            kwargs={"row_factory": dict_row, "autocommit": False,
                    "options": self._options,
                    "application_name": application_name},
            # A connection broken by a database restart is found and replaced before it is used.
            check=self._check_connection,
            connection_class=SessionConnection,
            name="connectivity",
        )

    @property
    def pool(self) -> ConnectionPool:
        return self._pool.pool

    def _check_connection(self, conn: psycopg.Connection) -> None:
        """The pool's check before it hands out a connection. When one is found broken, the
        others idle in the pool most likely are too (PostgreSQL restarted, or ended every
        session): they are all checked and replaced now. psycopg_pool would otherwise try them
        one at a time, sleeping 1, 2, 4 s... between tries, so that a pool holding four idle
        connections gave none within its 5 s timeout (a PoolTimeout, 503) after a restart."""
        try:
            ConnectionPool.check_connection(conn)
        except Exception:
            # `check` tests each idle connection with the static check, never this method.
            self.pool.check()
            raise

    def standalone(self, application_name: str, **settings: str) -> psycopg.Connection:
        """A connection of its own, outside the pool, in autocommit: for a reader that runs
        single statements often (the search model's catch-ups), at one round trip each, with
        no transaction to open and close and no check before each use. `settings`: more
        server settings for its session (a transaction pooler drops them all, as it drops the
        pool's)."""
        options = " ".join([self._options, *(f"-c {k}={v}" for k, v in settings.items())])
        return SessionConnection.connect(self._url, autocommit=True, row_factory=dict_row,
                                         options=options, application_name=application_name)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """One transaction: committed when the block ends, rolled back if it raises."""
        with self._pool.connection() as conn:
            if conn.behind_pooler:
                queries().store.settings_for_transaction(conn, **self._timeouts_ms)
            yield conn

    @contextmanager
    def snapshot(self) -> Iterator[psycopg.Connection]:
        """One read-only transaction that sees one snapshot throughout (REPEATABLE READ): a use
        case that reads with several statements gets what one statement would have seen, never
        half of a write committed between two of them. Set on the connection before its
        transaction begins (so behind PgBouncer too: BEGIN carries it), and put back before the
        connection returns to the pool."""
        with self._pool.connection() as conn:
            conn.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
            conn.read_only = True
            try:
                if conn.behind_pooler:
                    queries().store.settings_for_transaction(conn, **self._timeouts_ms)
                yield conn
            finally:
                # Read only: ending it by a rollback loses nothing, and the settings can only
                # change between transactions.
                if not conn.closed:
                    conn.rollback()
                    conn.isolation_level = None
                    conn.read_only = None

    def listen(self, event: str, listener: Callable[[], None]) -> None:
        """Call `listener` after each commit of a use case that `announces(event)`; what it
        raises reaches the caller of `run`, the transaction being committed already."""
        self._listeners.setdefault(event, []).append(listener)

    def run(self, use_case: Callable[..., T], *args, **kwargs) -> T:
        """Run `use_case(conn, *args, **kwargs)` in one transaction, again from the start when
        PostgreSQL reports a serialization failure or a deadlock (bounded, with jitter); then
        announce it if it is marked with `announces`. The properties it names as changed
        (store/read_fence.py `name_changed`) are its own: every use case starts with none."""
        with naming():
            result = self._run(use_case, *args, **kwargs)
            for event in getattr(use_case, "announces", ()):
                for listener in self._listeners.get(event, ()):
                    listener()
        return result

    def _run(self, use_case: Callable[..., T], *args, **kwargs) -> T:
        for attempt in range(self._retries):
            try:
                with self.connection() as conn:
                    return use_case(conn, *args, **kwargs)
            except RETRYABLE:
                if attempt == self._retries - 1:
                    raise
                time.sleep(random.uniform(0.005, 0.02) * (attempt + 1))
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._pool.close()
