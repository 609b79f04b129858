"""Where the reads that decide nothing go (contract 11.5): search, rates, the mapping reads and
the change feed. With DATABASE_READ_URL set they go to that streaming replica while it is no
more than READ_MAX_LAG_SECONDS behind and reachable, else to the primary; they come back to the
replica by themselves once it has caught up.

A read goes to the replica only when it had, at its last check, replayed past the primary's WAL
position that the request's read fence carries (store/read_fence.py): every write acknowledged
before the request began is then on it (contract 13.1). While writes keep coming that is seldom
true for long, and the reads go to the primary.

Everything that decides (authentication, quotes, bookings, reservations, the ARI push and its
reads) uses the primary's `Database` directly. A stale read therefore never oversells: a booking
made from an offer read on a lagging replica is priced and takes its inventory on the primary.

The lag is checked per process, at most once a second, by whichever request comes first after
the second has passed (the others go on with the last verdict, never waiting for it): no query
per request and no thread to start after gunicorn's fork."""

from __future__ import annotations

import math
import threading
import time
from contextlib import ExitStack, contextmanager
from typing import Callable, Iterator, Protocol

import psycopg
import structlog
from prometheus_client import Counter, Gauge
from psycopg_pool import PoolTimeout

from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.store.read_fence import lsn_of, request_fence
from connectivity.telemetry import REGISTRY

log = structlog.get_logger(__name__)

LAG_CHECK_INTERVAL_SECONDS = 1.0
# The lag check's own connection gives up this soon on a replica that does not answer: the
# request that happens to run the check waits at most this long, once a second.
LAG_CHECK_CONNECT_TIMEOUT_SECONDS = 2

READS = Counter("pcs_db_reads", "Read use cases (search, rates, mapping) by the server that "
                "answered them: replica or primary.", ("target",), registry=REGISTRY)
# Under gunicorn the largest value of the live processes is shown: one process that cannot
# reach the replica is enough to see it (a process that has not checked yet shows 0).
REPLICA_LAG = Gauge("pcs_read_replica_lag_seconds",
                    "How far the read replica was behind the primary at the last check (+Inf "
                    "when it could not be reached).", registry=REGISTRY,
                    multiprocess_mode="livemax")
REPLICA_FALLBACK = Gauge("pcs_read_replica_fallback",
                         "1 while reads go to the primary because the replica lags more than "
                         "READ_MAX_LAG_SECONDS or cannot be reached, else 0.",
                         registry=REGISTRY, multiprocess_mode="livemax")


REPLICA_BEHIND_FENCE = Counter(
    "pcs_read_replica_behind_fence", "Reads sent to the primary although the replica was "
    "usable, because at its last check it had not replayed the latest acknowledged write "
    "(store/read_fence.py).", registry=REGISTRY)


def wal_number(position: str) -> int:
    """A WAL position as PostgreSQL writes it (`16/B374D848`) as a comparable number."""
    high, _, low = position.partition("/")
    return (int(high, 16) << 32) | int(low, 16)


class Reads(Protocol):
    """What a read use case is given: a connection, in one transaction."""

    def connection(self): ...


class LagMonitor:
    """This process's view of one replica: how far behind it is, checked at most once per
    `interval` on a connection of its own."""

    def __init__(self, url: str, max_lag_seconds: float, *,
                 interval: float = LAG_CHECK_INTERVAL_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self._url = url
        self._max_lag = max_lag_seconds
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._conn: psycopg.Connection | None = None
        self._checked_at = -math.inf
        # None: unreachable (or not checked yet).
        self.lag_seconds: float | None = None
        # The WAL position replayed at the last check (None: not a replica).
        self.replayed: int | None = None

    def has_replayed(self, position: int) -> bool:
        """Whether the replica had replayed WAL up to `position` at the last check."""
        return self.replayed is None or self.replayed >= position

    def usable(self) -> bool:
        if self._clock() - self._checked_at >= self._interval and self._lock.acquire(False):
            try:
                if self._clock() - self._checked_at >= self._interval:
                    self._check()
            finally:
                self._lock.release()
        lag = self.lag_seconds
        return lag is not None and lag <= self._max_lag

    def unreachable(self) -> None:
        """A read found the replica gone: off it at once, until the next check finds it."""
        if self.lag_seconds is not None:
            log.warning("read_replica_lost")
        self.lag_seconds = None
        REPLICA_FALLBACK.set(1)
        REPLICA_LAG.set(math.inf)

    def _check(self) -> None:
        was = self.lag_seconds
        try:
            if self._conn is None or self._conn.closed or self._conn.broken:
                self._conn = psycopg.connect(
                    self._url, autocommit=True, prepare_threshold=None,
                    connect_timeout=LAG_CHECK_CONNECT_TIMEOUT_SECONDS,
                    application_name="pcs-lag-monitor")
            lag, replayed = queries().store.replica_lag_seconds(self._conn)
            lag = float(lag)
        except psycopg.Error as exc:
            self._drop_connection()
            if was is not None or self._checked_at == -math.inf:
                log.warning("read_replica_unreachable", error=type(exc).__name__,
                            action="reads go to the primary")
            self.unreachable()
        else:
            self.lag_seconds = lag
            # None on a server not in recovery: it has every write (a promoted replica).
            self.replayed = None if replayed is None else wal_number(replayed)
            REPLICA_LAG.set(lag)
            REPLICA_FALLBACK.set(0 if lag <= self._max_lag else 1)
            if lag > self._max_lag and (was is None or was <= self._max_lag):
                log.warning("read_replica_lagging", lag_seconds=round(lag, 3),
                            max_lag_seconds=self._max_lag, action="reads go to the primary")
            elif lag <= self._max_lag and (was is None or was > self._max_lag):
                log.info("read_replica_in_use", lag_seconds=round(lag, 3))
        self._checked_at = self._clock()

    def _drop_connection(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except psycopg.Error:
                pass
            self._conn = None

    def close(self) -> None:
        with self._lock:
            self._drop_connection()


class ReadTarget:
    """The read use cases' database: `connection()` as `Database.connection()`, from the
    replica when the monitor allows it, else from the primary. Without a replica it is the
    primary."""

    def __init__(self, primary: Database, replica: Database | None = None,
                 monitor: LagMonitor | None = None):
        self.primary = primary
        self.replica = replica
        self.monitor = monitor

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        if self.replica is not None and self.monitor.usable() and self._reflects_the_fence():
            with ExitStack() as stack:
                try:
                    conn = stack.enter_context(self.replica.connection())
                except (psycopg.OperationalError, PoolTimeout):
                    # Gone since the last check: this read is served by the primary instead.
                    self.monitor.unreachable()
                else:
                    READS.labels("replica").inc()
                    try:
                        yield conn
                    except psycopg.OperationalError:
                        if conn.broken:
                            # Lost mid-read: this one answers 503 with Retry-After (api.py),
                            # the next ones go to the primary.
                            self.monitor.unreachable()
                        raise
                    return
        READS.labels("primary").inc()
        with self.primary.connection() as conn:
            yield conn

    def _reflects_the_fence(self) -> bool:
        """Whether the replica had replayed, at its last check, past the write the request's
        read fence names (store/read_fence.py): only then can it answer what must reflect
        every acknowledged write. A token without a position (or none) names no write the
        replica is known to hold: the primary answers."""
        position = lsn_of(request_fence.get())
        if position is None:
            REPLICA_BEHIND_FENCE.inc()
            return False
        if self.monitor.has_replayed(wal_number(position)):
            return True
        REPLICA_BEHIND_FENCE.inc()
        return False

    def close(self) -> None:
        if self.replica is not None:
            self.replica.close()
            self.monitor.close()
