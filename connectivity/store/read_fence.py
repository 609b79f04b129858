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

Each move also names the properties the write changed, where its writer knows them all (a
booking's, a pushed reservation's, an ARI batch's hotel): the script scores each in a sorted set
beside the token with the count it moved to. A move that names none (a catalogue load, a page
served) scores `*` instead, meaning every property. A catch-up reads, in one script with the
token, the properties scored above the count it last caught up under (`read_since`): when `*`
is not among them, those are every property an acknowledged write changed since, and it reads
the log of those alone (on Citus, their shards alone). A missing set, or one of an earlier
epoch, scores `*` at the next move: nothing named is ever trusted across a loss. So a use case
that names one property names every property it changes (`name_changed`), or none.

With a read replica the token also carries the primary's WAL position after the write
(`<epoch>.<n>/<lsn>`), so a read is sent to the replica only once it has replayed that far
(store/replica.py). The script keeps the latest position it was given: a writer that read its
position before another's commit and moves after it never takes the token back behind that
other write."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import redis
import structlog
from prometheus_client import Counter
from redis.exceptions import RedisError

from connectivity.store.fence_moves import FenceMoves
from connectivity.store.queries import queries
from connectivity.telemetry import REGISTRY

log = structlog.get_logger(__name__)

# The event `Database.run` announces after a use case marked with it commits.
READS_CHANGED = "reads-changed"

# The token the request in hand read (auth/access.py sets it): what the read replica's routing
# compares with (store/replica.py). None: unknown.
request_fence: ContextVar[bytes | None] = ContextVar("request_fence", default=None)

# The properties the use case in hand named as changed (`name_changed`), for the move after its
# commit; None outside `Database.run`, which opens a new set for each use case (`naming`).
_named: ContextVar[set[int] | None] = ContextVar("read_fence_named", default=None)

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


def named_key(prefix: str) -> str:
    return f"{prefix}reads:fence:named"


def moves_channel(prefix: str) -> str:
    return f"{prefix}reads:fence:moves"


def name_changed(*property_ids: int) -> None:
    """Name properties the use case in hand changes (days, inventory, what search and rates
    show), so that its move lets the copies read those alone. Naming one means naming every
    one it changes: the copies read no other property's changes for this write."""
    named = _named.get()
    if named is not None:
        named.update(property_ids)


@contextmanager
def naming() -> Iterator[None]:
    """The scope of one use case's names (`Database.run`): its move names what it named, and
    a use case that named nothing moves for every property."""
    token = _named.set(set())
    try:
        yield
    finally:
        _named.reset(token)


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


# KEYS[1]: the fence, KEYS[2]: its named properties. ARGV[1]: the epoch to start when there is
# no token (or none of this form); ARGV[2]: the primary's WAL position after the write, ''
# without a read replica; ARGV[3]: the channel each move is published on, as `<epoch>.<n>`
# and what it named (`*`: every property; store/fence_moves.py); ARGV[4...]: the properties
# the write changed (none: every property).
# The token keeps the later of its position and ARGV[2] (`X/Y`: two hexadecimal numbers). The
# named set scores each property with the count that last named it, and `*` with the last
# count that named none; a set without `*` (lost, or never made) starts again as all unnamed.
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
local fresh = not epoch
if fresh then epoch, n, lsn = ARGV[1], '0', '' end
local count = tonumber(n) + 1
local moved = epoch .. '.' .. string.format('%d', count)
local kept = later(lsn, ARGV[2])
if kept and position(kept) then moved = moved .. '/' .. kept end
redis.call('SET', KEYS[1], moved)
local named = '*'
if fresh or not redis.call('ZSCORE', KEYS[2], '*') then
  redis.call('DEL', KEYS[2])
  redis.call('ZADD', KEYS[2], count, '*')
elseif #ARGV < 4 then
  redis.call('ZADD', KEYS[2], count, '*')
else
  for i = 4, #ARGV do redis.call('ZADD', KEYS[2], count, ARGV[i]) end
  named = table.concat(ARGV, ' ', 4)
end
redis.call('PUBLISH', ARGV[3], epoch .. '.' .. string.format('%d', count) .. ' ' .. named)
return moved
"""

# KEYS as MOVE's. ARGV[1], ARGV[2]: the epoch and count of the token the reader last caught up
# under ('' and 0: none). The token as it is now, and the properties named since that count
# (false when that cannot be told: another epoch, a set lost, or a move since that named none).
READ_SINCE = """
local token = redis.call('GET', KEYS[1])
if not token then return {false, false} end
local epoch = string.match(token, '^(%x+)%.%d+')
if epoch ~= ARGV[1] then return {token, false} end
local unnamed = redis.call('ZSCORE', KEYS[2], '*')
if not unnamed or tonumber(unnamed) > tonumber(ARGV[2]) then return {token, false} end
return {token, redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[2], '+inf')}
"""


@dataclass(frozen=True)
class FenceReading:
    """What a catch-up reads before its first database read: the token (None: none, or Redis
    did not answer), and the properties every write counted since its last token changed
    (None: any property may have changed)."""
    token: bytes | None
    changed: frozenset[int] | None


class ReadFence:
    """The fence's token in Redis. `wal_position`, when given, is called for the primary's
    current WAL position (only with a read replica configured: a round trip to the primary)."""

    def __init__(self, client: redis.Redis, prefix: str, wal_position=None):
        self._redis = client
        self.key = fence_key(prefix)
        self.named_key = named_key(prefix)
        self.channel = moves_channel(prefix)
        # The moves as published, followed once a process asks `untouched` (fence_moves.py).
        self._moves = FenceMoves(client, self.channel)
        self._wal_position = wal_position
        self._move = client.register_script(MOVE)
        self._read_since = client.register_script(READ_SINCE)

    def move(self, changed: Iterable[int] | None = None) -> None:
        """The token counted one further, after a write committed and before anyone is told of
        it, naming the properties it `changed` (by default those the use case in hand named;
        none: every property). Raises ReadsNotFenced when Redis did not take it."""
        position = self._wal_position() if self._wal_position is not None else ""
        named = sorted(int(p) for p in (_named.get() or () if changed is None else changed))
        try:
            self._move(keys=[self.key, self.named_key],
                       args=[uuid.uuid4().hex, position, self.channel, *named])
        except (RedisError, OSError) as exc:
            MISSED.inc()
            raise ReadsNotFenced(
                f"the read copies could not be told of the change ({type(exc).__name__}: Redis "
                "unreachable?); they show it at their next periodic catch-up, within "
                "SEARCH_MODEL_REFRESH_SECONDS") from None

    def move_or_warn(self, changed: Iterable[int] | None = None) -> None:
        """`move`, for a writer that must answer its client whatever happens: the change is
        committed, and the periodic catch-up bounds how long a read can miss it."""
        try:
            self.move(changed)
        except ReadsNotFenced:
            log.warning("read_fence_not_moved", action="reads catch up at their next period")

    def read_since(self, caught_up_under: bytes | None) -> FenceReading:
        """The token as it is now, and the properties named by every move counted after
        `caught_up_under` (the token the reader's last catch-up began under), in one script:
        what a catch-up reads before its first database read, which covers every request that
        read its token before (catching_up.py). Any doubt reads as None."""
        mine = _count(caught_up_under) if caught_up_under is not None else None
        epoch, count = (mine[0].decode(), mine[1]) if mine is not None else ("", 0)
        try:
            token, named = self._read_since(keys=[self.key, self.named_key],
                                            args=[epoch, count])
        except (RedisError, OSError):
            return FenceReading(None, None)
        try:
            return FenceReading(token, None if named is None
                                else frozenset(int(p) for p in named))
        except ValueError:  # not this code's writing: doubt it
            return FenceReading(token, None)

    def untouched(self, since: bytes, asked: bytes, property_id: int) -> bool:
        """Whether every write acknowledged before a request read the token `asked` that
        changed the property was counted by the token `since` already: both of one epoch, and
        no move counted after `since` named the property (nor named none). A copy current
        for the property as of `since` then reflects them all. Any doubt reads as False.
        Answered from the moves this process follows (fence_moves.py) when they tell, else
        from the names read since (`read_since`)."""
        mine, theirs = _count(since), _count(asked)
        if mine is None or theirs is None or mine[0] != theirs[0]:
            return False
        known = self._moves.untouched(mine[0], mine[1], theirs[1], property_id)
        if known is not None:
            return known
        changed = self.read_since(since).changed
        return changed is not None and property_id not in changed

    def establish(self) -> None:
        """After Redis lost the token: a new one (NX: whoever sets one first wins). Copies read
        None until then, and catch up on every read."""
        try:
            self._redis.set(self.key, f"{uuid.uuid4().hex}.0", nx=True)
        except (RedisError, OSError) as exc:
            log.warning("read_fence_not_established", reason=type(exc).__name__)
