"""RQ internals: the scheduler process a worker starts (`Worker._start_scheduler`,
`RQScheduler.start` and its lock, rq 3.0).

Two rules RQ does not keep by itself:

- The scheduler child holds no socket of the worker's. RQ forks it (`RQScheduler.start`, a
  'fork' Process), so the child would share every socket the worker holds, its PostgreSQL
  connections and its Redis connections among them; two processes on one connection can
  corrupt its protocol (and a child closing it would end the worker's session). Here it is
  spawned: a fresh interpreter, which inherits no socket (Python opens them non-inheritable,
  PEP 446), opens its own Redis connection from the worker's connection settings
  (`RQScheduler.connection`) and no PostgreSQL one.
- A scheduler lock left by a dead scheduler is taken over at once. RQ's scheduler holds
  `rq:scheduler-lock:<queue>` for `interval` + 60 s in the name of a scheduler named afresh at
  each worker start, refreshing it with a heartbeat every `interval` (1 s). A worker killed
  with SIGKILL leaves the lock behind, and its successor's scheduler would wait for it to expire
  and for the next maintenance pass: about a minute and a half during which delayed retries and
  `delayed_apply` jobs are not enqueued. A lock whose owner is gone is released (RQ's
  owner-checked release) before the lock is tried: gone when it has sent no heartbeat for
  STALE_AFTER_SECONDS, or at once when it ran on this host and its process no longer exists (a
  worker restarted in place).

Relied on (rq 3.0): `Worker._start_scheduler(burst, logging_level, date_format, log_format)`
builds an `RQScheduler` and starts it; `RQScheduler.start()` sets `_status`, `_connection` and
`_process`; `rq.scheduler.run(scheduler)` is the child's body; the lock key
(`get_locking_key`) holds the owner's name and the owner's hash
(`SCHEDULER_KEY_TEMPLATE % name`) its `last_heartbeat`, `hostname` and `pid`. Guarded by
tests/adapters/test_rq_scheduler.py."""

from __future__ import annotations

import logging
import os
import socket
from multiprocessing import get_context

from redis import Redis
from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT
from rq.logutils import setup_loghandlers
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, RQScheduler, run
from rq.scripts import release_lock
from rq.utils import now, utcparse

# A live scheduler beats every second; this many seconds without a beat is a dead one.
STALE_AFTER_SECONDS = 5


def _text(value) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def _owner_gone(record: dict, stale_after: float) -> bool:
    beat = record.get("last_heartbeat")
    if beat is None:
        return True
    if (now() - utcparse(beat)).total_seconds() >= stale_after:
        return True
    pid = record.get("pid")
    return (record.get("hostname") == socket.gethostname() and pid is not None
            and pid.isdigit() and int(pid) > 0 and not _process_exists(int(pid)))


def release_stale_scheduler_locks(connection: Redis, queue_names, *,
                                  stale_after: float = STALE_AFTER_SECONDS) -> list[str]:
    """Release the scheduler locks of `queue_names` whose owner is gone; the queue names
    released."""
    released = []
    for name in sorted(queue_names):
        key = RQScheduler.get_locking_key(name)
        owner = _text(connection.get(key))
        if owner is None:
            continue
        record = {_text(field): _text(value) for field, value in
                  connection.hgetall(SCHEDULER_KEY_TEMPLATE % owner).items()}
        if _owner_gone(record, stale_after) and release_lock(connection, key, owner):
            released.append(name)
    return released


def _run_spawned(scheduler: RQScheduler, logging_level) -> None:
    # A spawned child starts with no logging set up (RQ's forked one inherits the worker's).
    setup_loghandlers(level=logging_level, name="rq.scheduler",
                      log_format=DEFAULT_LOGGING_FORMAT, date_format=DEFAULT_LOGGING_DATE_FORMAT)
    run(scheduler)


class SpawnedScheduler(RQScheduler):
    """RQ's scheduler, started in a spawned process, taking over locks left by dead ones."""

    logging_level: str | int = logging.INFO

    def __getstate__(self):
        # What crosses to the child: no process handle (not picklable) and no connection.
        state = dict(self.__dict__)
        state["_process"] = None
        state["_connection"] = None
        return state

    def acquire_locks(self, auto_start=False):
        release_stale_scheduler_locks(self.connection, self._queue_names)
        return super().acquire_locks(auto_start=auto_start)

    def start(self):
        self._status = self.Status.STARTED
        self._connection = None
        self._process = get_context("spawn").Process(
            target=_run_spawned, args=(self, self.logging_level), name="Scheduler", daemon=False)
        self._process.start()
        return self._process


class SpawnedSchedulerWorker:
    """A mixin for an RQ worker class (before it in the bases): its scheduler is a
    SpawnedScheduler, started as RQ starts its own."""

    def _start_scheduler(self, burst: bool = False, logging_level: str | None = "INFO",
                         date_format: str = DEFAULT_LOGGING_DATE_FORMAT,
                         log_format: str = DEFAULT_LOGGING_FORMAT):
        level = logging_level if logging_level is not None else self.log.level
        self.scheduler = SpawnedScheduler(self.queues, connection=self.connection,
                                          logging_level=level, date_format=date_format,
                                          log_format=log_format, serializer=self.serializer)
        self.scheduler.logging_level = level
        self.scheduler.acquire_locks()
        if self.scheduler.acquired_locks:
            if burst:
                try:
                    self.scheduler.register_birth()
                    self.scheduler.enqueue_scheduled_jobs()
                finally:
                    self.scheduler.release_locks()
                    self.scheduler.register_death()
            else:
                self.scheduler.start()
