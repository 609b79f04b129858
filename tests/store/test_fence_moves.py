"""The read fence's moves as published (store/fence_moves.py): a process that follows them answers
whether a move since a token named a property without asking Redis, and only over a run of
moves it saw every one of; anything else is left to the script (ReadFence.untouched)."""

from __future__ import annotations

import os
import time

import redis

from connectivity.store.fence_moves import FenceMoves
from connectivity.store.read_fence import ReadFence, _count


def test_a_run_of_moves_answers_for_the_counts_it_holds_and_nothing_else():
    moves = FenceMoves(redis.Redis(), "unused")
    moves._following = os.getpid()  # fed by hand: no thread
    for message in (b"e.4 1 2", b"e.5 3"):
        moves.apply(message)
    assert moves.untouched(b"e", 4, 5, 1) is True      # 5 named 3 only
    assert moves.untouched(b"e", 4, 5, 3) is False
    assert moves.untouched(b"e", 3, 5, 1) is False     # 4 named 1
    assert moves.untouched(b"e", 2, 5, 1) is None      # 3 before the run: unknown
    assert moves.untouched(b"e", 4, 6, 1) is None      # 6 not seen yet
    assert moves.untouched(b"f", 4, 5, 1) is None      # another epoch
    moves.apply(b"e.6 *")
    assert moves.untouched(b"e", 5, 6, 1) is False     # 6 named none: every property
    # A later move that names it makes it doubt, even for a token counted before that move.
    moves.apply(b"e.7 2")
    assert moves.untouched(b"e", 6, 7, 1) is True
    assert moves.untouched(b"e", 6, 6, 2) is False
    moves.apply(b"e.9 4")                               # 8 missed: a run of its own from 9
    assert moves.untouched(b"e", 7, 9, 1) is None
    assert moves.untouched(b"e", 8, 9, 1) is True
    moves.apply(b"f.1 1")                               # Redis lost the token: a new epoch
    assert moves.untouched(b"e", 8, 9, 1) is None
    assert moves.untouched(b"f", 0, 1, 2) is True and moves.untouched(b"f", 0, 1, 1) is False


def test_a_fence_answers_from_the_moves_it_follows_once_it_saw_them(services):
    client = redis.Redis.from_url(services.redis_url)
    fence = ReadFence(client, services.redis_prefix)
    fence.move([1])
    since = client.get(fence.key)
    assert fence.untouched(since, since, 2)  # by the script: nothing followed yet
    deadline = time.monotonic() + 10
    while True:  # until it follows: it subscribes in a thread of its own, from now on
        since = client.get(fence.key)
        epoch, count = _count(since)
        fence.move([2])
        asked = client.get(fence.key)
        time.sleep(0.02)
        if fence._moves.untouched(epoch, count, count + 1, 1) is not None:
            break
        assert time.monotonic() < deadline, "the moves were not followed"
    # The script doubts everything now (the named set lost); the moves followed do not.
    client.delete(fence.named_key)
    assert fence.untouched(since, asked, 1) is True
    assert fence.untouched(since, asked, 2) is False
    client.close()
