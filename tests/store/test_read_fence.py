"""The read fence's token (store/read_fence.py): counted one further by each move within its
epoch, a new epoch once Redis lost it, and with a read replica the latest WAL position any
writer gave, whatever order their moves arrive in; and the properties its moves named, which a
reader trusts only when nothing since its token can have changed another."""

from __future__ import annotations

import redis

from connectivity.store.database import Database, announces
from connectivity.store.read_fence import (READS_CHANGED, ReadFence, covers, lsn_of,
                                           name_changed)


def test_each_move_counts_further_and_a_lost_token_starts_an_epoch_no_copy_can_match(services):
    client = redis.Redis.from_url(services.redis_url)
    fence = ReadFence(client, services.redis_prefix)
    fence.move()
    first = client.get(fence.key)
    fence.move()
    second = client.get(fence.key)
    assert covers(second, first) and not covers(first, second)
    client.delete(fence.key)  # Redis restarted, or the key was evicted
    fence.move()
    third = client.get(fence.key)
    assert not covers(third, second) and not covers(second, third)
    fence.establish()  # only where there is none
    assert client.get(fence.key) == third
    client.close()


def test_the_token_keeps_the_latest_wal_position_it_was_given(services):
    # A writer that read its position before another's commit may move after it: the token
    # must not fall back behind the other's write, or a read would go to a replica without it.
    # Positions compare as two hexadecimal numbers, not as text ("0/9" before "0/10").
    given = ["0/20", "0/10", "0/9", "0/100", "A/0", "10/0", "F/FFFFFFFF"]
    kept = ["0/20", "0/20", "0/20", "0/100", "A/0", "10/0", "10/0"]
    client = redis.Redis.from_url(services.redis_url)
    positions = iter(given)
    fence = ReadFence(client, services.redis_prefix, wal_position=lambda: next(positions))
    seen = []
    for _ in given:
        fence.move()
        seen.append(lsn_of(client.get(fence.key)))
    assert seen == kept
    client.close()


def test_tokens_of_another_form_are_compared_whole():
    assert covers(b"bench", b"bench")
    assert not covers(b"bench", b"other") and not covers(None, b"bench")
    assert not covers(b"ab.7", b"bench") and not covers(b"bench", b"ab.1")


def test_a_reader_learns_the_properties_named_since_its_token_and_doubts_anything_else(services):
    client = redis.Redis.from_url(services.redis_url)
    fence = ReadFence(client, services.redis_prefix)
    fence.move([7])  # the first move of an epoch names nothing it can vouch for before it
    first = fence.read_since(None)
    assert first.token == client.get(fence.key) and first.changed is None
    fence.move([7, 8])
    fence.move([9])
    fence.move([7])
    after_first = fence.read_since(first.token)
    assert after_first.token == client.get(fence.key)
    assert after_first.changed == {7, 8, 9}
    second = client.get(fence.key)
    assert fence.read_since(second).changed == frozenset()  # nothing counted since
    fence.move([8])
    assert fence.read_since(second).changed == {8}
    fence.move()  # a move that names none: any property may have changed
    assert fence.read_since(second).changed is None
    third = client.get(fence.key)
    fence.move([9])
    assert fence.read_since(third).changed == {9}
    assert fence.read_since(b"bench").changed is None  # a token of another form
    client.zadd(fence.named_key, {"id": 1e12})  # not this code's writing
    assert fence.read_since(third).changed is None
    client.delete(fence.named_key)  # lost, the token kept: every earlier count is in doubt
    assert fence.read_since(third).changed is None
    fence.move([9])
    assert fence.read_since(third).changed is None
    fourth = client.get(fence.key)
    fence.move([10])
    assert fence.read_since(fourth).changed == {10}
    client.delete(fence.key)  # a new epoch: nothing named before it counts
    fence.move([11])
    assert fence.read_since(fourth).changed is None
    client.close()


def test_a_use_case_names_its_own_properties_only(services):
    """`Database.run` gives each use case its own names: one that names none moves for every
    property, whatever the use case before it named."""
    client = redis.Redis.from_url(services.redis_url)
    fence = ReadFence(client, services.redis_prefix)
    db = Database(services.database_url, max_size=1)
    db.listen(READS_CHANGED, fence.move_or_warn)

    @announces(READS_CHANGED)
    def naming(conn, *properties):
        name_changed(*properties)

    try:
        fence.move()
        before = client.get(fence.key)
        db.run(naming, 3, 4)
        name_changed(5)  # outside a use case: nobody's move
        db.run(naming, 6)
        assert fence.read_since(before).changed == {3, 4, 6}
        after = client.get(fence.key)
        db.run(naming)
        assert fence.read_since(after).changed is None
    finally:
        db.close()
        client.close()
