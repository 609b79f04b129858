"""The RQ jobs of the ARI push. They take a batch id, never an object, and import no Flask app:
the worker process gives them their database (`use_database`), else they build one from the
environment as the Procfile's worker runs.

The worker runs jobs in its own process (worker.py), so the database and its pool live as long
as the worker, and `cancel_statement_in_hand` can reach the job's connection from the worker's
SIGTERM handling."""

from __future__ import annotations

import psycopg
import structlog
from rq import get_current_job

from connectivity.ari.batch_events import announce_finished
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.store.read_fence import ReadFence, primary_wal_position
from connectivity.settings import Settings
from connectivity.ari.apply import apply_batch
from connectivity.ari.queue import BatchQueue, redis_prefix_of

log = structlog.get_logger(__name__)

_database: Database | None = None
# Whether the read fence's token carries the primary's WAL position (a read replica is
# configured: store/read_fence.py).
_fence_wal_positions = False
# The connection of the apply transaction in hand, while a job runs one.
_in_hand: psycopg.Connection | None = None


def use_database(db: Database, *, read_replica: bool = False) -> None:
    global _database, _fence_wal_positions
    _database, _fence_wal_positions = db, read_replica


def worker_database(settings: Settings, *, application_name: str) -> Database:
    """A worker process's pool of one connection, with the worker's timeouts."""
    return Database(settings.database_url, max_size=1, timeout=settings.db_pool_timeout_seconds,
                    application_name=application_name,
                    statement_timeout_seconds=settings.worker_statement_timeout_seconds,
                    idle_in_transaction_timeout_seconds=(
                        settings.db_idle_in_transaction_timeout_seconds))


def database() -> Database:
    global _database, _fence_wal_positions
    if _database is None:
        settings = Settings.from_env()
        _database = worker_database(settings, application_name="pcs-worker")
        _fence_wal_positions = settings.database_read_url is not None
    return _database


def apply_ari_batch(batch_id: str, property_id: int | None = None) -> dict | None:
    """Apply the batch with its group (ari/apply.py). The jobs of the group's other batches are
    taken off the queue as soon as the group is claimed, before it commits: a second worker
    would otherwise spend its time on them. Should the group fail, they are put back (a worker
    killed meanwhile leaves them to recovery, 60-90 s). `property_id`: the batch's hotel, which
    jobs carry; a job without it (enqueued by an older release) has it looked up."""
    global _in_hand
    job = get_current_job()
    batch_queue = (BatchQueue(job.connection, redis_prefix_of(job.origin))
                   if job is not None else None)
    dropped: list[str] = []
    hotels: dict[str, int] = {}

    def claimed(others: list[dict]) -> None:
        hotels.update((batch["id"], batch["property_id"]) for batch in others)
        if batch_queue is not None:
            dropped.extend(batch_queue.drop_waiting([batch["id"] for batch in others]))
    try:
        outcome = apply_batch(database(), batch_id, property_id, on_connection=_hold,
                              on_claimed=claimed)
    except BaseException:
        for other in dropped:
            batch_queue.enqueue(other, hotels[other])
        raise
    finally:
        _in_hand = None
    if job is not None:
        # The group is committed: search and rates must reflect it before anyone is told
        # (store/read_fence.py; a status read that comes first moves the fence itself).
        db = database()
        ReadFence(job.connection, redis_prefix_of(job.origin),
                  wal_position=(lambda: primary_wal_position(db)) if _fence_wal_positions
                  else None).move_or_warn(
                      None if property_id is None else {property_id, *hotels.values()})
    if outcome is None:
        log.info("ari_batch_not_applied_here", batch_id=batch_id)
        return None
    others = outcome.pop("others")
    log.info("ari_batch_applied", batch_id=batch_id, group_size=len(others) + 1,
             jobs_dropped=len(dropped), **outcome)
    return outcome


def _hold(conn: psycopg.Connection) -> None:
    global _in_hand
    _in_hand = conn


def cancel_statement_in_hand() -> bool:
    """Ask PostgreSQL to cancel the statement the job is running, if any (from another thread):
    the job then fails with QueryCanceled, its transaction rolled back, and RQ retries it. True
    when there was a transaction to cancel."""
    conn = _in_hand
    if conn is None or conn.closed:
        return False
    conn.cancel_safe(timeout=5.0)
    return True


def batch_job_failed(job, connection, exc_type, exc_value, traceback) -> None:
    """RQ's failure callback. A failure with retries left is only logged; after the last one
    the batch is reported `failed` (its error class only: messages can quote data)."""
    log.error("ari_batch_job_failed", batch_id=job.id, error=exc_type.__name__,
              retries_left=job.retries_left or 0)
    if job.retries_left:
        return
    with database().connection() as conn:
        announce_finished(conn, queries().ari.fail_batch(
            conn, id=job.id, failure=f"processing failed: {exc_type.__name__}"))
