"""The read fence: how a copy that serves reads (the search model, a replica) knows it may answer
without first catching up, and still reflects every write acknowledged before the request began
(contract 13.1).

Redis holds one token, `<epoch>.<n>`: an epoch (random, chosen when the token is first set or
after Redis lost it) and a count of moves in it. Whoever is about to tell a client of a
committed write moves it, counting one more, in one Redis script (atomic):

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
the catch-up's first database read). A token of the same epoch counted no further (`covers`)
means that every write acknowledged before the request had moved the fence before that token
was read, so had committed before the catch-up read the log, and it reflects them; a request
that finds a catch-up under way waits for it and needs no other when its token is covered. A
catch-up records the token it reads itself just before its first database read, not the older
one of the request that began it: every request that read its token before is covered.
Any other token (a later count, another epoch, or none when Redis did not answer) makes the
read catch up first. Why an epoch: as with the key cache's generation (auth/keycache.py), Redis
may lose the key, and a count starting again could come back to a value a stale copy recorded;
a new epoch is never comparable with an old one.

What bounds a move that never happened (a process killed between its commit and its move, or
Redis unreachable from the writer only): the copies catch up at least every
`SEARCH_MODEL_REFRESH_SECONDS` anyway, and the read points above move the fence again for
anything recent they serve. The operators' commands exit non-zero when they could not move it.

With a read replica the token also carries the primary's WAL position after the write
(`<epoch>.<n>/<lsn>`), so a read is sent to the replica only once it has replayed that far
(store/replica.py). The script keeps the latest position it was given: a writer that read its
position before another's commit and moves after it never takes the token back behind that
other write."""

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


def covers(caught_up_under: bytes | None, asked: bytes) -> bool:
    """Whether a catch-up begun under the token `caught_up_under` reflects every write
    acknowledged before a request read `asked`: the same token, or one of the same epoch counted
    no further. A token of another form (the tests' and benches' own) is compared whole."""
    if caught_up_under is None:
        return False
    if asked == caught_up_under:
        return True
    mine, theirs = _count(caught_up_under), _count(asked)
    return (mine is not None and theirs is not None and mine[0] == theirs[0]
            and theirs[1] <= mine[1])


def _count(token: bytes) -> tuple[bytes, int] | None:
    epoch, dot, n = token.split(b"/", 1)[0].partition(b".")
    return (epoch, int(n)) if dot and n.isdigit() else None


# KEYS[1]: the fence. ARGV[1]: the epoch to start when there is no token (or none of this
# form); ARGV[2]: the primary's WAL position after the write, '' without a read replica.
# The token keeps the later of its position and ARGV[2] (`X/Y`: two hexadecimal numbers).
MOVE = """
local function position(lsn)
  local high, low = string.match(lsn or '', '^(%x+)/(%x+)$')
  if not high then return nil end
  return {tonumber(high, 16), tonumber(low, 16)}
end
local function later(a, b)
  local pa, pb = position(a), position(b)
  if not pa then return b end
  if not pb then return a end
  if pa[1] > pb[1] or (pa[1] == pb[1] and pa[2] > pb[2]) then return a end
  return b
end
local token = redis.call('GET', KEYS[1])
local epoch, n, lsn
if token then epoch, n, lsn = string.match(token, '^(%x+)%.(%d+)/?(.*)$') end
if not epoch then epoch, n, lsn = ARGV[1], '0', '' end
local moved = epoch .. '.' .. string.format('%d', tonumber(n) + 1)
local kept = later(lsn, ARGV[2])
if kept and position(kept) then moved = moved .. '/' .. kept end
redis.call('SET', KEYS[1], moved)
return moved
"""


class ReadFence:
    """The fence's token in Redis. `wal_position`, when given, is called for the primary's
    current WAL position (only with a read replica configured: a round trip to the primary)."""

    def __init__(self, client: redis.Redis, prefix: str, wal_position=None):
        self._redis = client
        self.key = fence_key(prefix)
        self._wal_position = wal_position
        self._move = client.register_script(MOVE)

    def move(self) -> None:
        """The token counted one further, after a write committed and before anyone is told of
        it. Raises ReadsNotFenced when Redis did not take it."""
        position = self._wal_position() if self._wal_position is not None else ""
        try:
            self._move(keys=[self.key], args=[uuid.uuid4().hex, position])
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

    def read(self) -> bytes | None:
        """The token as it is now (None: none, or Redis did not answer): what a catch-up
        records before its first database read, which covers every request that read its token
        before (catching_up.py)."""
        try:
            return self._redis.get(self.key)
        except (RedisError, OSError):
            return None

    def establish(self) -> None:
        """After Redis lost the token: a new one (NX: whoever sets one first wins). Copies read
        None until then, and catch up on every read."""
        try:
            self._redis.set(self.key, f"{uuid.uuid4().hex}.0", nx=True)
        except (RedisError, OSError) as exc:
            log.warning("read_fence_not_established", reason=type(exc).__name__)
