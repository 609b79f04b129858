"""Confirmation numbers: `PCS-` and 12 characters of [A-Z0-9], unique across every booking of
every property because each is a permutation of its booking's id, and the ids come from one
sequence. A random draw would need a unique key to police it, and under Citus a unique key
holds only within one property's shard (docs/operations.md 6.4).

A permutation anyone can compute would let two numbers tell how many bookings lie between them.
So the ids are permuted under the deployment's own key (ConfirmationKey: 32 random bytes made
once, sealed in the database, never changed: a new key could give a new booking an old one's
number), by a Feistel network over 62 bits (2^62 < 36^12) whose rounds are HMAC-SHA256 under
that key. Any round function makes a Feistel network a bijection, so distinct ids still give
distinct numbers; with a secret one, numbers reveal nothing of the order or count of bookings.

Numbers already issued stay as they are (stored with their bookings; nothing decodes a number
back to an id). They were made with PUBLIC, the same network under a published key, and new
ones must never equal them. So a number is always PUBLIC of something, and the keyed part
decides what: ids up to `keyed_above` (the last id drawn when the key was made) keep PUBLIC of
themselves; a later id becomes PUBLIC of a keyed value at or above `keyed_above + WINDOW`, never
one of the ids below, as PUBLIC is a bijection. The window leaves room for the bookings that
processes still running the code before the key (a rolling deploy) number meanwhile. The keyed
value is the keyed network's cycle walk from `id + WINDOW`: a permutation applied again until it
lands at or above the bound is a bijection of the values there (format-preserving encryption's
cycle walking), so later ids still get distinct numbers; a walk takes a second step once in
about 2^29 ids while `keyed_above` is below 2^32."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
import threading

from connectivity.auth.credentials import SigningVault
from connectivity.store.database import Database
from connectivity.store.queries import queries

ALPHABET = string.digits + string.ascii_uppercase
LENGTH = 12
BITS = 62
HALF_BITS = BITS // 2
HALF_MASK = (1 << HALF_BITS) - 1
# Ids a rolling deploy may still number with PUBLIC after the key is made (far more bookings
# than any deploy sees).
WINDOW = 1 << 32
PUBLIC_ROUNDS = 4
KEYED_ROUNDS = 8
PUBLIC_KEY = b"pcs-confirmation-number-v1"


def _public_round(half: int, round_number: int) -> int:
    digest = hashlib.blake2b(half.to_bytes(4, "big"), digest_size=4, key=PUBLIC_KEY,
                             person=round_number.to_bytes(16, "big")).digest()
    return int.from_bytes(digest, "big") & HALF_MASK


def _feistel(value: int, rounds: int, round_function) -> int:
    left, right = value >> HALF_BITS, value & HALF_MASK
    for round_number in range(rounds):
        left, right = right, left ^ round_function(right, round_number)
    return (left << HALF_BITS) | right


def _check(value: int) -> None:
    if not 0 <= value < 1 << BITS:
        raise ValueError(f"booking id {value} outside the {BITS} bits a number can hold")


def permute(value: int) -> int:
    """PUBLIC: the permutation of the numbers issued before the deployment's key."""
    _check(value)
    return _feistel(value, PUBLIC_ROUNDS, _public_round)


def keyed_permutation(key: bytes):
    """The network under `key`: a permutation of the 62-bit values."""
    def round_function(half: int, round_number: int) -> int:
        digest = hmac.digest(key, bytes((round_number,)) + half.to_bytes(4, "big"), "sha256")
        return int.from_bytes(digest[:4], "big") & HALF_MASK

    def keyed(value: int) -> int:
        return _feistel(value, KEYED_ROUNDS, round_function)
    return keyed


def number_text(value: int) -> str:
    characters = []
    for _ in range(LENGTH):
        value, digit = divmod(value, len(ALPHABET))
        characters.append(ALPHABET[digit])
    return "PCS-" + "".join(reversed(characters))


class Numbering:
    """The numbers under one deployment key."""

    def __init__(self, key: bytes, keyed_above: int):
        self.keyed_above = keyed_above
        self._keyed = keyed_permutation(key)

    def permuted(self, booking_id: int) -> int:
        """The value PUBLIC turns into the booking's number."""
        _check(booking_id)
        if booking_id <= self.keyed_above:
            return booking_id
        floor = self.keyed_above + WINDOW
        value = booking_id + WINDOW
        _check(value)
        value = self._keyed(value)
        while value < floor:
            value = self._keyed(value)
        return value

    def confirmation_number(self, booking_id: int) -> str:
        return number_text(permute(self.permuted(booking_id)))


class ConfirmationKey:
    """The deployment's numbering, read (or made, the first time ever) once per process: the key
    never changes, so a process keeps what it read."""

    def __init__(self, db: Database, vault: SigningVault):
        self._db, self._vault = db, vault
        self._numbering: Numbering | None = None
        self._lock = threading.Lock()

    def numbering(self) -> Numbering:
        """In a transaction of its own: call it before the booking's transaction."""
        if self._numbering is None:
            with self._lock:
                if self._numbering is None:
                    self._numbering = self._db.run(_read_or_make, self._vault)
        return self._numbering


class UnopenableKey(RuntimeError):
    """The key was sealed under a SECRET_KEY this process does not hold (docs/operations.md
    5.4): no booking can be numbered until that key is back in SECRET_KEY_PREVIOUS."""


def _read_or_make(conn, vault: SigningVault) -> Numbering:
    q = queries().bookings
    row = q.confirmation_key(conn)
    if row is None:
        key = secrets.token_bytes(32)
        row = q.create_confirmation_key(conn, sealed=vault.seal(key.hex()),
                                        sealed_by=vault.sealed_by,
                                        keyed_above=q.last_booking_id(conn))
        if row is None:  # another process made it first
            row = q.confirmation_key(conn)
    opened = vault.open(row["sealed"])
    if opened is None:
        raise UnopenableKey("the confirmation key is sealed under a SECRET_KEY this process "
                            "does not hold; add it to SECRET_KEY_PREVIOUS")
    return Numbering(bytes.fromhex(opened), row["keyed_above"])
