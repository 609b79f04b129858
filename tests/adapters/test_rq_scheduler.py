"""The worker's RQ scheduler process (connectivity/adapters/rq_scheduler.py), with real Redis and
PostgreSQL: it holds none of the worker's sockets (its PostgreSQL connections and its Redis
connection stay the worker's own), a worker started after a scheduler was killed takes the
lock that scheduler left at once, rather than after it expires (61 s) and the next maintenance
pass, and a SIGKILL of the worker's own pid (not its group) leaves no scheduler behind. Also the
guard of the RQ internals the adapter relies on."""

from __future__ import annotations

import datetime as dt
import os
import signal
import socket
import time
from pathlib import Path

import subprocess
import sys

import pytest
import redis
from rq.scheduler import SCHEDULER_KEY_TEMPLATE, RQScheduler
from rq.utils import now, utcformat

from connectivity.ari.queue import BatchQueue, queue_name
from connectivity.store.database import Database
from connectivity.worker import BatchWorker
from tests.ari.workers import ROOT, children_of
from tests.conftest import SECRET_KEY


def sockets(pid: int) -> set[str]:
    """The socket inodes a process holds open."""
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:"):
            found.add(target)
    return found


def wait_for(condition, what: str, seconds: float = 60):
    """A deadline only against hanging forever: the assertion is the condition, not a time."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


@pytest.fixture
def connection(services):
    client = redis.Redis.from_url(services.redis_url)
    yield client
    client.delete(RQScheduler.get_locking_key(queue_name(services.redis_prefix)))
    client.close()


@pytest.fixture
def make_worker(services, connection):
    made = []
    recovery = Database(services.database_url, max_size=1,
                        application_name="pcs-worker-recovery")

    def make() -> BatchWorker:
        worker = BatchWorker([queue_name(services.redis_prefix)], connection=connection,
                             batch_queue=BatchQueue(connection, services.redis_prefix),
                             database=recovery, stranded_after_seconds=60)
        made.append(worker)
        return worker
    yield make
    for worker in made:
        scheduler = worker.scheduler
        if scheduler is not None and scheduler._process is not None \
                and scheduler._process.is_alive():
            worker.stop_scheduler()
    recovery.close()


def scheduler_pid(connection, worker) -> int:
    """Once the scheduler process has registered itself (over its own Redis connection)."""
    key = SCHEDULER_KEY_TEMPLATE % worker.scheduler.name
    wait_for(lambda: connection.hget(key, "pid") not in (None, b"0"),
             "the scheduler registered its birth")
    return int(connection.hget(key, "pid"))


def test_the_scheduler_process_holds_none_of_the_workers_sockets(make_worker, connection):
    worker = make_worker()
    # The worker's PostgreSQL connection is open, as it is from start-up (recovery runs first).
    with worker.database.connection() as conn:
        conn.execute("SELECT 1")
    connection.ping()
    worker._start_scheduler()
    assert worker.scheduler.acquired_locks == {worker.queue_names()[0]}
    child = scheduler_pid(connection, worker)
    assert child != os.getpid()
    shared = sockets(child) & sockets(os.getpid())
    assert shared == set(), "the scheduler process shares the worker's sockets"


def test_a_lock_left_by_a_killed_scheduler_is_taken_by_the_next_worker_at_once(make_worker,
                                                                               connection):
    first = make_worker()
    first._start_scheduler()
    lock = RQScheduler.get_locking_key(first.queue_names()[0])
    dead = scheduler_pid(connection, first)
    os.kill(dead, signal.SIGKILL)  # as a SIGKILL to the worker's process group does
    first.scheduler._process.join(10)
    assert connection.get(lock) == first.scheduler.name.encode()  # left behind, 61 s TTL
    second = make_worker()
    second._start_scheduler()
    assert second.scheduler.acquired_locks == {first.queue_names()[0]}
    assert connection.get(lock) == second.scheduler.name.encode()
    scheduler_pid(connection, second)


def test_a_lock_whose_owner_stopped_beating_is_taken(make_worker, connection, services):
    lock = RQScheduler.get_locking_key(queue_name(services.redis_prefix))
    connection.set(lock, "elsewhere", ex=61)
    connection.hset(SCHEDULER_KEY_TEMPLATE % "elsewhere", mapping={
        "hostname": "another-host", "pid": "1",
        "last_heartbeat": utcformat(now() - dt.timedelta(seconds=30))})
    try:
        worker = make_worker()
        worker._start_scheduler()
        assert worker.scheduler.acquired_locks == {queue_name(services.redis_prefix)}
    finally:
        connection.delete(SCHEDULER_KEY_TEMPLATE % "elsewhere")


def test_a_lock_whose_owner_is_alive_elsewhere_is_left_to_it(make_worker, connection, services):
    lock = RQScheduler.get_locking_key(queue_name(services.redis_prefix))
    connection.set(lock, "alive", ex=61)
    connection.hset(SCHEDULER_KEY_TEMPLATE % "alive", mapping={
        "hostname": "another-host", "pid": "1", "last_heartbeat": utcformat(now())})
    try:
        worker = make_worker()
        worker._start_scheduler()
        assert worker.scheduler.acquired_locks == set()
        assert connection.get(lock) == b"alive"
    finally:
        connection.delete(SCHEDULER_KEY_TEMPLATE % "alive")


# --- a SIGKILL of the worker's own pid (issue 36, item 9) ----------------------------------------

def start_worker_process(services) -> subprocess.Popen:
    """The Procfile's worker, with its scheduler (not --burst)."""
    env = {**os.environ, "DATABASE_URL": services.database_url, "REDIS_URL": services.redis_url,
           "REDIS_PREFIX": services.redis_prefix, "SECRET_KEY": SECRET_KEY}
    return subprocess.Popen([sys.executable, "-m", "connectivity.worker"], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def lock_owner(connection, services) -> dict:
    """The hash of the scheduler holding the queue's lock ({} when none holds it)."""
    owner = connection.get(RQScheduler.get_locking_key(queue_name(services.redis_prefix)))
    if owner is None:
        return {}
    return {k.decode(): v.decode() for k, v in
            connection.hgetall(SCHEDULER_KEY_TEMPLATE % owner.decode()).items()}


def scheduling_for(connection, services, worker: subprocess.Popen) -> int:
    """Once the worker's scheduler holds the lock and has registered: its pid."""
    def holder() -> int | None:
        pid = lock_owner(connection, services).get("pid", "0")
        return int(pid) if int(pid) in children_of(worker.pid) else None
    wait_for(holder, "the worker's scheduler holds the lock")
    return holder()


def gone(pid: int) -> bool:
    """No such process, or one exited that nobody has reaped yet."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


@pytest.fixture
def worker_processes():
    """Worker processes a test starts; each, with whatever it started, killed at the end."""
    started: list[subprocess.Popen] = []
    left: list[int] = []
    yield started, left
    for worker in started:
        left.extend(children_of(worker.pid))
        if worker.poll() is None:
            worker.kill()
        worker.wait(10)
    for pid in left:
        if not gone(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_sigkill_of_the_worker_pid_ends_its_scheduler_which_releases_the_lock(
        services, connection, worker_processes):
    started, left = worker_processes
    worker = start_worker_process(services)
    started.append(worker)
    scheduler = scheduling_for(connection, services, worker)
    left.append(scheduler)
    os.kill(worker.pid, signal.SIGKILL)  # the pid alone: the scheduler is not signalled
    worker.wait(10)
    wait_for(lambda: gone(scheduler), "the scheduler noticed its worker died and exited", 10)
    assert lock_owner(connection, services) == {}


def test_the_next_worker_holds_the_lock_long_before_the_orphans_would_expire(
        services, connection, worker_processes):
    """Without the takeover it would wait for the orphaned scheduler's lock to expire (its
    interval + 60 s). The bound leaves room for the two processes' start, each importing the
    service: 10 s was once exceeded (10.1 s) on a 2-core machine running the tests in four
    processes."""
    started, left = worker_processes
    first = start_worker_process(services)
    started.append(first)
    left.append(scheduling_for(connection, services, first))
    os.kill(first.pid, signal.SIGKILL)
    first.wait(10)
    # Started at once, while the orphaned scheduler may still hold the lock: the lock is its.
    killed_at = time.monotonic()
    second = start_worker_process(services)
    started.append(second)
    left.append(scheduling_for(connection, services, second))
    assert time.monotonic() - killed_at < 30
    wait_for(lambda: all(gone(pid) for pid in left[:1]), "the orphaned scheduler exited", 10)


def test_a_lock_whose_owner_outlived_its_worker_on_this_host_is_taken_over(make_worker,
                                                                           connection, services):
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # a worker pid that no longer exists
    lock = RQScheduler.get_locking_key(queue_name(services.redis_prefix))
    connection.set(lock, "orphan", ex=61)
    # The orphan itself still runs (this process's pid) and beats.
    connection.hset(SCHEDULER_KEY_TEMPLATE % "orphan", mapping={
        "hostname": socket.gethostname(), "pid": str(os.getpid()),
        "worker_pid": str(ended.pid), "last_heartbeat": utcformat(now())})
    try:
        worker = make_worker()
        worker._start_scheduler()
        assert worker.scheduler.acquired_locks == {queue_name(services.redis_prefix)}
        assert connection.get(lock) == worker.scheduler.name.encode()
    finally:
        connection.delete(SCHEDULER_KEY_TEMPLATE % "orphan")
