"""The model host's wire (read_model/channel.py): whole messages whatever their size and however
they arrive, the other end's close and a silent one told apart, and a rates view as sent."""

from __future__ import annotations

import threading
import time
from multiprocessing.connection import Pipe

import numpy as np
import pytest

from connectivity.availability.read_model.answering import RatesView
from connectivity.availability.read_model.channel import CHUNK, Channel


def pair(timeout: float | None = None) -> tuple[Channel, Channel]:
    left, right = Pipe()  # a Unix socket pair, as Listener and Client open one
    return Channel(left, timeout=timeout), Channel(right, timeout=timeout)


def test_a_message_larger_than_the_sockets_buffer_arrives_whole():
    sender, receiver = pair(timeout=10)
    # 4 MiB: more than one sendmsg gets into a Unix socket when the sender has a timeout (it
    # writes what the socket takes, then waits for room), and many reads of CHUNK.
    big = bytes(range(256)) * (4 * 4096)
    assert len(big) > 16 * CHUNK
    sending = threading.Thread(target=sender.send, args=(("ok", big),))
    sending.start()
    assert receiver.recv() == ("ok", big)
    sending.join()


def test_messages_read_together_are_told_apart():
    sender, receiver = pair(timeout=10)
    for n in range(3):
        sender.send(("ok", n))
    time.sleep(0.05)  # all three in the socket: the first read takes them at once
    assert [receiver.recv() for _ in range(3)] == [("ok", 0), ("ok", 1), ("ok", 2)]


def test_a_closed_end_is_eof_and_a_silent_one_a_timeout():
    sender, receiver = pair(timeout=0.2)
    with pytest.raises(TimeoutError):
        receiver.recv()
    sender.close()
    with pytest.raises(EOFError):
        receiver.recv()


def test_a_rates_view_arrives_as_it_was_sent():
    """RatesView's own reduce (its days as bytes): the same offers, and days of the same dtype,
    shape and values, whatever their memory layout was (stay_days transposes them)."""
    rng = np.random.default_rng(7)
    money = rng.integers(-1, 10**9, (3, 15, 4), dtype=np.int64)
    flags = rng.integers(0, 2**20, (15, 3), dtype=np.int32).T  # not C-contiguous
    days = (money, flags, flags[::-1].copy(), np.zeros((3, 15), np.int32))
    sent = RatesView("ACME-LIS", "EUR", "Europe/Lisbon", 12,
                     [{"room_type_code": "DBL", "cancellation_policy": {"tiers": []}}], days)
    sender, receiver = pair(timeout=10)
    sender.send(("ok", sent))
    status, got = receiver.recv()
    assert status == "ok"
    assert (got.code, got.currency, got.timezone, got.max_child_age, got.offers) == (
        sent.code, sent.currency, sent.timezone, sent.max_child_age, sent.offers)
    for ours, theirs in zip(got.days, sent.days, strict=True):
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
        assert np.array_equal(ours, theirs)
