"""The read fence's moves as Redis publishes them (read_fence.py MOVE: `<epoch>.<n>` and the
properties the move named, or `*`), followed by a thread of the process that asks: a web worker
that reads rates from the model host's arrays asks, for each read, whether a move since the
token its copy of the hotel was current for named the hotel (ReadFence.untouched), and would
otherwise ask Redis each time.

What it knows is exact or nothing: every move from the first it saw on (counts follow one
another within an epoch, so a move missed, while it was not subscribed or Redis lost a message,
shows as a gap, and it starts again from the next one), up to the last it saw. A question about
counts outside that run, or another epoch, is answered None, and the caller asks Redis."""

from __future__ import annotations

import os
import threading
import time

import redis
import structlog

log = structlog.get_logger(__name__)

RETRY_SECONDS = 1.0


class FenceMoves:
    def __init__(self, client: redis.Redis, channel: str):
        # Its own connections: the subscription holds one for good, which the web process's
        # pool (a bounded one) would lose for its requests.
        pool = client.connection_pool
        self._client = redis.Redis(connection_pool=redis.ConnectionPool(
            connection_class=pool.connection_class, **pool.connection_kwargs))
        self._channel = channel
        self._lock = threading.Lock()
        self._epoch: bytes | None = None
        self._first = self._last = 0          # the run of counts known: every move in it
        self._named: dict[int, int] = {}      # property -> the last count that named it
        self._unnamed = 0                     # the last count that named none (every property)
        self._following: int | None = None    # the process whose thread follows (a fork: none)

    def untouched(self, epoch: bytes, since: int, asked: int, property_id: int) -> bool | None:
        """Whether no move counted after `since`, up to `asked` at least, named the property or
        named none (None: not known here)."""
        if self._following != os.getpid():
            self._follow()
        with self._lock:
            if self._epoch != epoch or since + 1 < self._first or self._last < asked:
                return None
            return self._unnamed <= since and self._named.get(property_id, 0) <= since

    def apply(self, message: bytes | str) -> None:
        """One move as published."""
        if isinstance(message, str):  # a client that decodes its answers
            message = message.encode()
        token, _, names = message.partition(b" ")
        epoch, _, n = token.partition(b".")
        count = int(n)
        named = None if names == b"*" else [int(p) for p in names.split()]
        with self._lock:
            if epoch != self._epoch or count != self._last + 1:
                self._epoch, self._first, self._named, self._unnamed = epoch, count, {}, 0
            if named is None:
                self._unnamed = count
            else:
                for property_id in named:
                    self._named[property_id] = count
            self._last = count

    def _follow(self) -> None:
        with self._lock:
            if self._following == os.getpid():
                return
            self._following = os.getpid()
            self._epoch = None  # what a parent process knew is not this one's to go on
        threading.Thread(target=self._run, daemon=True, name="read-fence-moves").start()

    def _run(self) -> None:
        while True:
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.subscribe(self._channel)
                while True:
                    message = pubsub.get_message(timeout=RETRY_SECONDS)
                    if message is not None and message["type"] == "message":
                        self.apply(message["data"])
            except Exception as exc:  # Redis away, or a message not of MOVE's writing
                with self._lock:
                    self._epoch = None  # whatever comes next starts a run of its own
                log.warning("read_fence_moves_not_followed", reason=type(exc).__name__)
                time.sleep(RETRY_SECONDS)
            finally:
                pubsub.close()
