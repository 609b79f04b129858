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
  STALE_AFTER_SECONDS, or at once when it ran on this host and its process, or the worker that
  started it, no longer exists (a worker restarted in place). The lock passes to the new owner
  in one step (compare and set), so the old owner's heartbeat cannot take an emptied lock back.
- A scheduler outlives no worker. A SIGKILL of the worker's pid alone (a process manager that
  kills the main process, not its group) leaves the spawned child running, heartbeating its
  lock for ever, and no later worker would schedule. A thread of the child watches its parent
  (`os.getppid()`, which changes once the parent is gone, to init or a subreaper) and stops the
  scheduler as a SIGTERM does (RQ's `request_stop`): the lock is released within a second or
  two, and the process exits.

Relied on (rq 3.0): `Worker._start_scheduler(burst, logging_level, date_format, log_format)`
builds an `RQScheduler` and starts it; `RQScheduler.start()` sets `_status`, `_connection` and
`_process`; `rq.scheduler.run(scheduler)` is the child's body, whose loop (`work()`) checks
`_stop_requested` (set by `request_stop()`) once a second and then releases its locks; the lock
key (`get_locking_key`) holds the owner's name and the owner's hash
(`SCHEDULER_KEY_TEMPLATE % name`, written from `to_dict()`) its `last_heartbeat`, `hostname` and
`pid`. Guarded by tests/adapters/test_rq_scheduler.py."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from multiprocessing import get_context
from pathlib import Path

from redis import Redis
from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT
from rq.logutils import setup_loghandlers
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, RQScheduler, run
from rq.utils import now, utcparse

# A live scheduler beats every second; this many seconds without a beat is a dead one.
STALE_AFTER_SECONDS = 5
# How often a scheduler process checks that the worker which started it is still its parent.
PARENT_CHECK_SECONDS = 0.5

# The lock passes from a gone owner (ARGV[1]) to the new one (ARGV[2]) only if the gone one
# still holds it: a release then an acquire would let the gone owner's heartbeat, if it still
# runs, take the emptied lock back in between.
_TAKE_OVER_LOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
    return 1
end
return 0
"""


def _text(value) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    # A killed process its parent has not reaped yet is still signalled, but is gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):  # no /proc here, or it just went
        return True


def _local_process_gone(record: dict, field: str) -> bool:
    pid = record.get(field)
    return (record.get("hostname") == socket.gethostname() and pid is not None
            and pid.isdigit() and int(pid) > 0 and not _process_exists(int(pid)))


def _owner_gone(record: dict, stale_after: float) -> bool:
    beat = record.get("last_heartbeat")
    if beat is None:
        return True
    if (now() - utcparse(beat)).total_seconds() >= stale_after:
        return True
    # The scheduler is gone, or its worker is, and the orphan is on its way out.
    return _local_process_gone(record, "pid") or _local_process_gone(record, "worker_pid")


def take_over_stale_scheduler_locks(connection: Redis, queue_names, new_owner: str, ttl: int,
                                    *, stale_after: float = STALE_AFTER_SECONDS) -> list[str]:
    """Pass the scheduler locks of `queue_names` whose owner is gone to `new_owner`; the queue
    names taken over."""
    taken = []
    take_over = connection.register_script(_TAKE_OVER_LOCK)
    for name in sorted(queue_names):
        key = RQScheduler.get_locking_key(name)
        owner = _text(connection.get(key))
        if owner is None or owner == new_owner:
            continue
        record = {_text(field): _text(value) for field, value in
                  connection.hgetall(SCHEDULER_KEY_TEMPLATE % owner).items()}
        if _owner_gone(record, stale_after) and take_over(keys=[key], args=[owner, new_owner, ttl]):
            taken.append(name)
    return taken


def _watch_parent(scheduler: RQScheduler, parent_pid: int) -> None:
    """Stop the scheduler once the worker that started it is no longer its parent."""
    while os.getppid() == parent_pid:
        time.sleep(PARENT_CHECK_SECONDS)
    scheduler.log.warning("Scheduler %s: its worker (pid %s) is gone; stopping", scheduler.name,
                          parent_pid)
    scheduler.request_stop()


def _run_spawned(scheduler: "SpawnedScheduler", logging_level) -> None:
    # A spawned child starts with no logging set up (RQ's forked one inherits the worker's):
    # the worker's own set-up when it gave one (its JSON lines), else RQ's.
    if scheduler.configure_logging is not None:
        scheduler.configure_logging(logging.getLevelName(logging_level)
                                    if isinstance(logging_level, int) else logging_level)
    setup_loghandlers(level=logging_level, name="rq.scheduler",
                      log_format=DEFAULT_LOGGING_FORMAT, date_format=DEFAULT_LOGGING_DATE_FORMAT)
    threading.Thread(target=_watch_parent, args=(scheduler, scheduler.worker_pid),
                     name="watch-worker", daemon=True).start()
    run(scheduler)


class SpawnedScheduler(RQScheduler):
    """RQ's scheduler, started in a spawned process, taking over locks left by dead ones."""

    logging_level: str | int = logging.INFO
    # The worker process that started the scheduler (recorded in its hash for the next worker).
    worker_pid: int = 0
    # What sets up the child's logging, from the level's name (a module-level function: it is
    # pickled by name); None: RQ's own handlers.
    configure_logging: Callable[[str], None] | None = None

    def __getstate__(self):
        # What crosses to the child: no process handle (not picklable) and no connection.
        state = dict(self.__dict__)
        state["_process"] = None
        state["_connection"] = None
        return state

    def to_dict(self) -> dict:
        return {**super().to_dict(), "worker_pid": str(self.worker_pid)}

    def acquire_locks(self, auto_start=False):
        # A lock taken over is then ours: RQ's acquire below counts it as refreshed.
        take_over_stale_scheduler_locks(self.connection, self._queue_names, self.name,
                                        self.interval + 60)
        return super().acquire_locks(auto_start=auto_start)

    def start(self):
        self._status = self.Status.STARTED
        self.worker_pid = os.getpid()
        self._connection = None
        self._process = get_context("spawn").Process(
            target=_run_spawned, args=(self, self.logging_level), name="Scheduler", daemon=False)
        self._process.start()
        return self._process


class SpawnedSchedulerWorker:
    """A mixin for an RQ worker class (before it in the bases): its scheduler is a
    SpawnedScheduler, started as RQ starts its own."""

    # SpawnedScheduler.configure_logging for the worker's schedulers.
    scheduler_logging: Callable[[str], None] | None = None

    def _start_scheduler(self, burst: bool = False, logging_level: str | None = "INFO",
                         date_format: str = DEFAULT_LOGGING_DATE_FORMAT,
                         log_format: str = DEFAULT_LOGGING_FORMAT):
        level = logging_level if logging_level is not None else self.log.level
        self.scheduler = SpawnedScheduler(self.queues, connection=self.connection,
                                          logging_level=level, date_format=date_format,
                                          log_format=log_format, serializer=self.serializer)
        self.scheduler.logging_level = level
        self.scheduler.configure_logging = self.scheduler_logging
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
