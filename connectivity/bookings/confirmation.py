"""Confirmation numbers: `PCS-` and 12 characters of [A-Z0-9], unique across every booking of
every property because each is a permutation of its booking's id, and the ids come from one
sequence. A random draw would need a unique key to police it, and under Citus a unique key
holds only within one property's shard (docs/operations.md 6.4).

The permutation is a Feistel network over 62 bits (2^62 < 36^12): any round function gives a
bijection, so distinct ids give distinct numbers. Its rounds only keep consecutive bookings
from getting consecutive-looking numbers; the key is not a secret (a booking is read with the
partner's key and reference, never with its confirmation number), and it must never change:
the numbers already issued were made with it."""

from __future__ import annotations

import hashlib
import string

ALPHABET = string.digits + string.ascii_uppercase
LENGTH = 12
HALF_BITS = 31
HALF_MASK = (1 << HALF_BITS) - 1
ROUNDS = 4
KEY = b"pcs-confirmation-number-v1"


def _round(half: int, round_number: int) -> int:
    digest = hashlib.blake2b(half.to_bytes(4, "big"), digest_size=4, key=KEY,
                             person=round_number.to_bytes(16, "big")).digest()
    return int.from_bytes(digest, "big") & HALF_MASK


def permute(booking_id: int) -> int:
    if not 0 <= booking_id < 1 << (2 * HALF_BITS):
        raise ValueError(f"booking id {booking_id} outside the 62 bits a number can hold")
    left, right = booking_id >> HALF_BITS, booking_id & HALF_MASK
    for round_number in range(ROUNDS):
        left, right = right, left ^ _round(right, round_number)
    return (left << HALF_BITS) | right


def confirmation_number(booking_id: int) -> str:
    value, characters = permute(booking_id), []
    for _ in range(LENGTH):
        value, digit = divmod(value, len(ALPHABET))
        characters.append(ALPHABET[digit])
    return "PCS-" + "".join(reversed(characters))
