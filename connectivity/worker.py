"""The Procfile's worker: an RQ worker on Redis that applies the accepted ARI batches.

HerokuWorker turns a platform's SIGTERM into a clean stop: the job in hand is given the chance
to finish (and, past the grace period, is left to be picked up again from PostgreSQL). Its
periodic maintenance also looks for batches Redis lost (ari/queue.py), and so does its start-up.

`python -m connectivity.worker [--burst]`: --burst works off the queue and exits."""

from __future__ import annotations

import argparse

import redis
from rq.worker import HerokuWorker

from .ari import jobs
from .ari.queue import BatchQueue, queue_name, requeue_stranded_batches
from .db import Database
from .logs import configure_logging
from .settings import Settings

# How often the worker looks for stranded batches (RQ's maintenance interval); how old an
# unfinished batch must be to count as stranded is a setting (ARI_STRANDED_AFTER_SECONDS).
RECOVERY_INTERVAL_SECONDS = 30


class BatchWorker(HerokuWorker):
    def __init__(self, *args, batch_queue: BatchQueue, database: Database,
                 stranded_after_seconds: float, **kwargs):
        # An idle worker waits on Redis for up to worker_ttl - 15 s and only then gets to its
        # maintenance: a TTL of the interval + 15 s keeps recovery on its interval when idle.
        super().__init__(*args, maintenance_interval=RECOVERY_INTERVAL_SECONDS,
                         worker_ttl=RECOVERY_INTERVAL_SECONDS + 15, **kwargs)
        self.batch_queue = batch_queue
        self.database = database
        self.stranded_after_seconds = stranded_after_seconds

    def run_maintenance_tasks(self):
        super().run_maintenance_tasks()
        requeue_stranded_batches(self.database, self.batch_queue,
                                 older_than_seconds=self.stranded_after_seconds)


def main(argv: list[str] | None = None) -> None:
    options = argparse.ArgumentParser(prog="python -m connectivity.worker")
    options.add_argument("--burst", action="store_true", help="exit once the queue is empty")
    args = options.parse_args(argv)
    settings = Settings.from_env()
    configure_logging(settings.log_level)
    # Two databases, because each job runs in a fork of this process: the jobs' pool is never
    # opened here, so every fork opens its own; recovery, which runs here, has the other.
    jobs.use_database(Database(settings.database_url, max_size=1,
                               timeout=settings.db_pool_timeout_seconds,
                               application_name="pcs-worker"))
    recovery = Database(settings.database_url, max_size=1,
                        timeout=settings.db_pool_timeout_seconds,
                        application_name="pcs-worker-recovery")
    connection = redis.Redis.from_url(settings.redis_url)
    worker = BatchWorker([queue_name(settings.redis_prefix)], connection=connection,
                         batch_queue=BatchQueue(connection, settings.redis_prefix),
                         database=recovery,
                         stranded_after_seconds=settings.ari_stranded_after_seconds)
    try:
        worker.work(burst=args.burst, with_scheduler=not args.burst)
    finally:
        recovery.close()


if __name__ == "__main__":
    main()
