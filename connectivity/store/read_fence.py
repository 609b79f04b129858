"""The read fence: how a copy that serves reads (the search model, a replica) knows it may answer
without first catching up, and still reflects every write acknowledged before the request began
(contract 13.1).

Redis holds one token. Whoever is about to tell a client of a committed write moves it to a new
random value first:

- a use case marked `announces(READS_CHANGED)` (bookings, cancels, pushed reservations, pause and
  resume, catalogue loads), by `Database.run` after its commit and before the route answers;
- the ARI worker after each apply, and, since a batch's status is readable as soon as the apply
  commits (before the worker got to its move), `GET /ari/batches/{batchId}` when it reports a
  batch that finished recently;
- the change feed and the event log when a page serves something recent, and the webhook sender
  before it delivers events, since what they serve is committed, but its writer may not have
  moved the fence yet.

A request reads the token in the Redis round trip it already makes (the rate limit's pipeline,
auth/access.py). A copy records the token its last catch-up was started under (read *before*
the catch-up's first database read). Equal tokens mean no move since that catch-up began, so
every acknowledged write had committed before it read, and it reflects them; any other token
(or none, when Redis did not answer) makes the read catch up first. Why tokens and not a
counter: as with the key cache's generation (auth/keycache.py), Redis may lose the key, and a
counter starting again could come back to a value a stale copy recorded; a random token never
repeats.

What bounds a move that never happened (a process killed between its commit and its move, or
Redis unreachable from the writer only): the copies catch up at least every
`SEARCH_MODEL_REFRESH_SECONDS` anyway, and the read points above move the fence again for
anything recent they serve. The operators' commands exit non-zero when they could not move it.

With a read replica the token also carries the primary's WAL position after the write
(`<token>/<lsn>`), so a read is sent to the replica only once it has replayed that far
(store/replica.py)."""

from __future__ import annotations

import uuid
from contextvars import ContextVar

import redis
import structlog
from prometheus_client import Counter
from redis.exceptions import RedisError

from connectivity.store.queries import queries
from connectivity.telemetry import REGISTRY

log = structlog.get_logger(__name__)

# The event `Database.run` announces after a use case marked with it commits.
READS_CHANGED = "reads-changed"

# The token the request in hand read (auth/access.py sets it): what the read replica's routing
# compares with (store/replica.py). None: unknown.
request_fence: ContextVar[bytes | None] = ContextVar("request_fence", default=None)

MISSED = Counter("pcs_read_fence_missed", "Writes whose read fence could not be moved (Redis "
                 "unreachable from the writer): until the copies' next periodic catch-up a read "
                 "may not reflect them.", registry=REGISTRY)


class ReadsNotFenced(RuntimeError):
    """The write is committed, but the copies that serve reads could not be told."""


def primary_wal_position(db) -> str:
    """The primary's current WAL position (`db`: the primary's Database)."""
    with db.connection() as conn:
        return queries().store.wal_position(conn)


def fence_key(prefix: str) -> str:
    return f"{prefix}reads:fence"


def lsn_of(token: bytes | None) -> str | None:
    """The primary's WAL position a token carries (None: none carried, or no token)."""
    if token is None:
        return None
    _, _, lsn = token.decode().partition("/")
    return lsn or None


class ReadFence:
    """The fence's token in Redis. `wal_position`, when given, is called for the primary's
    current WAL position (only with a read replica configured: a round trip to the primary)."""

    def __init__(self, client: redis.Redis, prefix: str, wal_position=None):
        self._redis = client
        self.key = fence_key(prefix)
        self._wal_position = wal_position

    def move(self) -> None:
        """A new token, after a write committed and before anyone is told of it. Raises
        ReadsNotFenced when Redis did not take it."""
        token = uuid.uuid4().hex
        if self._wal_position is not None:
            token = f"{token}/{self._wal_position()}"
        try:
            self._redis.set(self.key, token)
        except (RedisError, OSError) as exc:
            MISSED.inc()
            raise ReadsNotFenced(
                f"the read copies could not be told of the change ({type(exc).__name__}: Redis "
                "unreachable?); they show it at their next periodic catch-up, within "
                "SEARCH_MODEL_REFRESH_SECONDS") from None

    def move_or_warn(self) -> None:
        """`move`, for a writer that must answer its client whatever happens: the change is
        committed, and the periodic catch-up bounds how long a read can miss it."""
        try:
            self.move()
        except ReadsNotFenced:
            log.warning("read_fence_not_moved", action="reads catch up at their next period")

    def establish(self) -> None:
        """After Redis lost the token: a new one (NX: whoever sets one first wins). Copies read
        None until then, and catch up on every read."""
        try:
            self._redis.set(self.key, uuid.uuid4().hex, nx=True)
        except (RedisError, OSError) as exc:
            log.warning("read_fence_not_established", reason=type(exc).__name__)
