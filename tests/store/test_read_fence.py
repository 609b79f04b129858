"""The read fence's token (store/read_fence.py): counted one further by each move within its
epoch, a new epoch once Redis lost it, and with a read replica the latest WAL position any
writer gave, whatever order their moves arrive in."""

from __future__ import annotations

import redis

from connectivity.store.read_fence import ReadFence, covers, lsn_of


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
