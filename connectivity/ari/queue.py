"""The signal that a batch is waiting: an RQ job on Redis whose id is the batch id.

PostgreSQL holds the batch; Redis may lose the job (down when the batch was accepted, flushed,
or holding the job of a worker that died). `requeue_stranded_batches` puts such batches back on
the queue; the worker runs it at start-up and then periodically. A job that runs twice is
harmless: applying a batch locks its row and does nothing once the batch is finished."""

from __future__ import annotations

import datetime as dt

import structlog
from redis import Redis
from redis.exceptions import RedisError
from rq import Callback, Queue, Retry
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from connectivity.store.database import Database
from connectivity.store.queries import queries

log = structlog.get_logger(__name__)

ARI_QUEUE = "ari"
# A 1,000-range restrictions batch can expand to hundreds of thousands of days.
JOB_TIMEOUT_SECONDS = 900
# A failing apply is tried again before the batch is reported `failed`.
JOB_RETRY = Retry(max=3, interval=[5, 30, 120])
# RQ keeps results briefly; the outcome lives in PostgreSQL (GET /ari/batches).
RESULT_TTL_SECONDS = 600
# Jobs still waiting for a worker: nothing to recover.
WAITING = {JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED}


def _whole_second_after(moment: dt.datetime) -> dt.datetime:
    """RQ keeps a schedule in whole seconds, truncated: a job scheduled at 12:00:09.5 may run at
    12:00:09. Rounded up, it runs no sooner than asked."""
    whole = moment.replace(microsecond=0)
    return whole if whole == moment else whole + dt.timedelta(seconds=1)


def queue_name(redis_prefix: str) -> str:
    # Prefixed like every Redis key, so a shared Redis keeps services and test runs apart.
    return f"{redis_prefix}{ARI_QUEUE}"


def redis_prefix_of(name: str) -> str:
    """The Redis prefix of a queue named by queue_name (a running job knows its queue's name)."""
    return name.removesuffix(ARI_QUEUE)


class BatchQueue:
    def __init__(self, connection: Redis, redis_prefix: str):
        self.connection = connection
        self.queue = Queue(queue_name(redis_prefix), connection=connection)

    def depth(self) -> int:
        """How many jobs wait on the queue for a worker (one Redis round trip)."""
        return self.queue.count

    def enqueue(self, batch_id: str, property_id: int | None = None,
                not_before: dt.datetime | None = None) -> bool:
        """Put the batch's job on the queue (`not_before`: scheduled for then, by the worker's
        scheduler); False (and a warning) when Redis cannot be reached, which loses nothing: the
        batch is in PostgreSQL and recovery enqueues it later. The job carries the batch's hotel
        (the service always knows it), so that the worker finds the batch on its hotel's shard
        (on Citus, a lookup by id alone reads every shard)."""
        options = dict(job_id=batch_id, job_timeout=JOB_TIMEOUT_SECONDS, retry=JOB_RETRY,
                       result_ttl=RESULT_TTL_SECONDS,
                       on_failure=Callback("connectivity.ari.jobs.batch_job_failed"))
        arguments = (batch_id,) if property_id is None else (batch_id, property_id)
        try:
            if not_before is not None:
                self.queue.enqueue_at(_whole_second_after(not_before),
                                      "connectivity.ari.jobs.apply_ari_batch", *arguments,
                                      **options)
            else:
                self.queue.enqueue("connectivity.ari.jobs.apply_ari_batch", *arguments, **options)
        except (RedisError, OSError) as exc:
            log.warning("ari_batch_not_enqueued", batch_id=batch_id, error=str(exc))
            return False
        return True

    def drop_waiting(self, batch_ids: list[str]) -> list[str]:
        """Take the jobs of batches another job's group is applying off the queue (those still
        waiting there; returned): each would only find its batch finished, at RQ's cost of a job
        (Redis bookkeeping, heartbeat, result, log lines: more than applying a one-item batch in
        a group), and a second worker would take them first. Two round trips whatever their
        number. A job a worker has already taken is not in the queue and is left alone (it finds
        its batch taken). Nothing is dropped when Redis cannot be reached: the jobs then run for
        nothing."""
        if not batch_ids:
            return []
        try:
            with self.connection.pipeline(transaction=False) as pipeline:
                for batch_id in batch_ids:
                    self.queue.remove(batch_id, pipeline=pipeline)
                removed = pipeline.execute()
            dropped = [b for b, count in zip(batch_ids, removed) if count]
            if dropped:
                self.connection.delete(*(Job.key_for(b) for b in dropped))
        except (RedisError, OSError) as exc:
            log.warning("ari_jobs_not_dropped", count=len(batch_ids), error=str(exc))
            return []
        return dropped

    def waiting_or_alive(self, batch_id: str, heartbeat_grace: dt.timedelta) -> bool:
        """Whether the batch's job is queued, or running with a recent heartbeat."""
        try:
            job = Job.fetch(batch_id, connection=self.connection)
        except NoSuchJobError:
            return False
        status = job.get_status(refresh=False)
        if status in WAITING:
            return True
        if status == JobStatus.STARTED and job.last_heartbeat is not None:
            age = dt.datetime.now(dt.timezone.utc) - job.last_heartbeat.replace(
                tzinfo=job.last_heartbeat.tzinfo or dt.timezone.utc)
            return age < heartbeat_grace
        return False


def requeue_stranded_batches(db: Database, queue: BatchQueue, *, older_than_seconds: float = 60,
                             heartbeat_grace_seconds: float = 120,
                             max_count: int = 1000) -> list[str]:
    """Enqueue again every unfinished batch older than `older_than_seconds` whose job is
    neither waiting nor running (its worker's heartbeat fresher than the grace)."""
    with db.connection() as conn:
        stranded = queries().ari.stranded_batches(conn, older_than_seconds=older_than_seconds,
                                                  max_count=max_count)
    grace = dt.timedelta(seconds=heartbeat_grace_seconds)
    requeued = [row["id"] for row in stranded
                if not queue.waiting_or_alive(row["id"], grace)
                and queue.enqueue(row["id"], row["property_id"])]
    if requeued:
        log.warning("ari_batches_requeued", count=len(requeued), batch_ids=requeued[:20])
    return requeued
