"""The Procfile's worker: an RQ worker on Redis that applies the accepted ARI batches.

It runs each job in its own process (RQ's SimpleWorker) and keeps its database pool from job to
job: a work horse forked per job (RQ's default) would open a database connection for every
batch, which costs more than applying a small batch (docs/benchmarks-history.md, "ARI at
channel-manager volume: worker designs").

A platform's SIGTERM is a clean stop, as RQ's HerokuWorker makes it for a forked horse: the job
in hand is given `imminent_shutdown_delay` seconds to finish; past that its statement is
cancelled in PostgreSQL, its transaction rolls back and RQ's retry (or recovery) applies it
later. Its periodic maintenance also looks for batches Redis lost (ari/queue.py), and so does
its start-up.

`python -m connectivity.worker [--burst]`: --burst works off the queue and exits."""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading
import time

import psycopg
import redis
import structlog
from psycopg_pool import PoolTimeout
from redis.exceptions import RedisError
from rq.worker import SimpleWorker, WorkerStatus

from connectivity.adapters.rq_pubsub import stop_listening
from connectivity.adapters.rq_scheduler import SpawnedSchedulerWorker
from connectivity.ari import jobs
from connectivity.ari.queue import BatchQueue, queue_name, requeue_stranded_batches
from connectivity.store.database import Database
from connectivity.logs import configure_logging
from connectivity.settings import Settings

# How often the worker looks for stranded batches (RQ's maintenance interval); how old an
# unfinished batch must be to count as stranded is a setting (ARI_STRANDED_AFTER_SECONDS).
RECOVERY_INTERVAL_SECONDS = 30
# While Redis is unreachable, how often the worker tries it again.
REDIS_RETRY_SECONDS = 1.0

log = structlog.get_logger(__name__)


class BatchWorker(SpawnedSchedulerWorker, SimpleWorker):
    # The scheduler (delayed retries, delayed_apply) runs in a spawned process holding none of
    # this process's PostgreSQL or Redis connections, and takes over a lock a killed worker's
    # scheduler left (adapters/rq_scheduler.py); it logs the worker's JSON lines.
    scheduler_logging = staticmethod(configure_logging)

    # What the job in hand is given after SIGTERM, as HerokuWorker gives its horse: a platform
    # sends SIGKILL some seconds later (Heroku 30 s, Kubernetes 30 s by default).
    imminent_shutdown_delay = 6

    def __init__(self, *args, batch_queue: BatchQueue, database: Database,
                 stranded_after_seconds: float, **kwargs):
        # An idle worker waits on Redis for up to worker_ttl - 15 s and only then gets to its
        # maintenance: a TTL of the interval + 15 s keeps recovery on its interval when idle.
        super().__init__(*args, maintenance_interval=RECOVERY_INTERVAL_SECONDS,
                         worker_ttl=RECOVERY_INTERVAL_SECONDS + 15, **kwargs)
        self.batch_queue = batch_queue
        self.database = database
        self.stranded_after_seconds = stranded_after_seconds
        self.stop_requested = False
        self._give_up = None

    def request_stop(self, signum, frame):
        # Set before RQ's handler, which itself needs Redis and can raise while it is down
        # (serve() then knows the worker ended on request).
        self.stop_requested = True
        super().request_stop(signum, frame)

    def handle_warm_shutdown_request(self):
        """With a job in hand, let it finish, but cancel it past the grace (from a timer thread:
        a signal handler cannot raise into psycopg without leaving its connection busy)."""
        super().handle_warm_shutdown_request()
        if self.get_state() == WorkerStatus.BUSY and self._give_up is None:
            log.warning("worker_stopping_after_job", grace_seconds=self.imminent_shutdown_delay)
            self._give_up = threading.Timer(self.imminent_shutdown_delay, self._cancel_job)
            self._give_up.daemon = True
            self._give_up.start()

    def _cancel_job(self):
        if jobs.cancel_statement_in_hand():
            log.warning("worker_cancelled_job_past_grace",
                        grace_seconds=self.imminent_shutdown_delay)

    def execute_job(self, job, queue):
        try:
            super().execute_job(job, queue)
        finally:
            # A job that ended within the grace: the timer must not cancel a later statement.
            if self._give_up is not None:
                self._give_up.cancel()

    def run_maintenance_tasks(self):
        super().run_maintenance_tasks()
        try:
            requeue_stranded_batches(self.database, self.batch_queue,
                                     older_than_seconds=self.stranded_after_seconds)
        except (psycopg.Error, PoolTimeout, RedisError) as exc:
            # RQ quits on any error here: with PostgreSQL down, recovery waits for the next
            # interval instead of the worker exiting.
            log.warning("ari_recovery_skipped", error=type(exc).__name__)


def serve(make_worker, connection: redis.Redis, burst: bool) -> None:
    """Run workers until a stop is requested (or, in burst mode, the queue is worked off).

    RQ's worker needs Redis to be built and started, and quits or raises when Redis goes away
    at some points of its loop (marking itself idle, its teardown); a platform restarts a
    crashed process only after growing delays, and the accepted batches would wait long after
    Redis is back. So a worker that could not start, or ended without a stop request, is
    replaced by a fresh one (registering anew in a Redis that may have restarted empty) once
    Redis answers again."""
    while True:
        worker = None
        try:
            worker = make_worker()
        except RedisError as exc:
            if burst:  # a one-off run reports the outage instead of waiting it out
                raise
            log.warning("worker_cannot_reach_redis", error=type(exc).__name__)
        else:
            try:
                worker.work(burst=burst, with_scheduler=not burst)
            except RedisError as exc:
                if burst:
                    raise
                log.warning("worker_lost_redis", error=type(exc).__name__)
                # RQ's teardown stopped before its pub/sub listener: stop it, or it would go
                # on listening for the dropped worker.
                stop_listening(worker)
            if burst or worker.stop_requested:
                return
        log.warning("worker_waiting_for_redis")
        if not _wait_for_redis(connection, worker):
            return


def _wait_for_redis(connection: redis.Redis, last: BatchWorker | None) -> bool:
    """True once Redis answers; False when SIGTERM or SIGINT comes first, here or to the last
    worker's handler just before (the next worker installs RQ's own handlers again)."""
    stop: list[int] = []

    def request_stop(signum, frame):
        stop.append(signum)
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, request_stop)
    while not stop and not (last is not None and last.stop_requested):
        with contextlib.suppress(RedisError, OSError):
            connection.ping()
            return True
        time.sleep(REDIS_RETRY_SECONDS)
    return False


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(prog="python -m connectivity.worker")
    options.add_argument("--burst", action="store_true", help="exit once the queue is empty")
    args = options.parse_args(argv)
    settings = Settings.from_env()
    configure_logging(settings.log_level)
    # Two pools of one connection: the jobs' stays in a transaction for a whole group, and a
    # statement cancelled past the SIGTERM grace must never be recovery's.
    jobs.use_database(jobs.worker_database(settings, application_name="pcs-worker"),
                      read_replica=settings.database_read_url is not None)
    recovery = jobs.worker_database(settings, application_name="pcs-worker-recovery")
    connection = redis.Redis.from_url(settings.redis_url)

    def make_worker() -> BatchWorker:
        return BatchWorker([queue_name(settings.redis_prefix)], connection=connection,
                           batch_queue=BatchQueue(connection, settings.redis_prefix),
                           database=recovery,
                           stranded_after_seconds=settings.ari_stranded_after_seconds)
    try:
        serve(make_worker, connection, args.burst)
    finally:
        recovery.close()


if __name__ == "__main__":
    main()
