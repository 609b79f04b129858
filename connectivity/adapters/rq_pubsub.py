"""RQ internal: the worker's pub/sub listener thread, `Worker.pubsub_thread`.

RQ's public `Worker.unsubscribe()` first sends UNSUBSCRIBE, which raises while Redis is away and
then leaves the listener thread running. When a worker's loop ended on a Redis error, its
teardown never reached `unsubscribe()`: the thread must be stopped without a word to Redis.
Relied on (rq 3.0): `subscribe()` sets `pubsub_thread` to redis-py's `PubSubWorkerThread`
(`.stop()`, `.is_alive()`), None before. Guarded by tests/adapters/test_library_internals.py."""

from __future__ import annotations

from rq import Worker


def stop_listening(worker: Worker) -> None:
    """Stop `worker`'s pub/sub listener, if it has one, without talking to Redis."""
    thread = getattr(worker, "pubsub_thread", None)
    if thread is not None:
        thread.stop()
