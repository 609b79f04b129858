"""Confirmation numbers as computed (connectivity/bookings/confirmation.py): a permutation of
booking ids under the deployment's own key, unique, in the contract's format, with nothing of
the order or count of bookings to read from them, never equal to a number issued before the
key. Computation alone: CI's PgBouncer and Citus passes leave this file out (.ci/run);
test_confirmation.py holds the key in PostgreSQL."""

from __future__ import annotations

import hashlib
import re

import pytest

from connectivity.bookings.confirmation import (BITS, HALF_BITS, HALF_MASK, PUBLIC_KEY,
                                                PUBLIC_ROUNDS, WINDOW, Numbering, number_text,
                                                permute)

FORMAT = re.compile(r"^PCS-[A-Z0-9]{12}$")
KEY = bytes(range(32))


def public_inverse(number: str) -> int:
    """The id (or keyed value) PUBLIC turned into `number`: written here from the published
    network, apart from the module, to check what a number stands for."""
    value = 0
    for character in number.removeprefix("PCS-"):
        value = value * 36 + int(character, 36)
    left, right = value >> HALF_BITS, value & HALF_MASK
    for round_number in reversed(range(PUBLIC_ROUNDS)):
        digest = hashlib.blake2b(left.to_bytes(4, "big"), digest_size=4, key=PUBLIC_KEY,
                                 person=round_number.to_bytes(16, "big")).digest()
        left, right = right ^ (int.from_bytes(digest, "big") & HALF_MASK), left
    return (left << HALF_BITS) | right


@pytest.mark.parametrize("booking_id, issued", [
    (1, "PCS-809NAO56EBQI"), (2, "PCS-UJSWD5FWOORO"), (1000, "PCS-GEEC7Q8EHFZI"),
    (2 ** 40, "PCS-A7DEUZA741J3")])
def test_numbers_issued_before_the_key_are_made_as_they_were(booking_id, issued):
    # Pinned from the code before the key: ids up to keyed_above keep these numbers.
    assert number_text(permute(booking_id)) == issued
    assert Numbering(KEY, keyed_above=2 ** 40).confirmation_number(booking_id) == issued
    assert public_inverse(issued) == booking_id


def test_keyed_numbers_are_unique_and_in_the_format():
    numbering = Numbering(KEY, keyed_above=0)
    numbers = [numbering.confirmation_number(i) for i in range(1, 100_001)]
    assert len(set(numbers)) == len(numbers)
    assert all(FORMAT.match(n) for n in numbers)


def test_keyed_numbers_never_equal_one_issued_before_the_key_or_during_its_deploy():
    keyed_above = 12_345
    numbering = Numbering(KEY, keyed_above)
    for booking_id in range(keyed_above + 1, keyed_above + 20_001):
        # Issued before (ids up to keyed_above) or by code still running the public numbering
        # during the deploy (ids below keyed_above + WINDOW): PUBLIC of an id below the floor.
        assert public_inverse(numbering.confirmation_number(booking_id)) >= keyed_above + WINDOW


def test_the_walk_keeps_numbers_unique_when_it_has_to_step_again():
    # With the floor at half the values, half the walks take more than one step.
    keyed_above = (1 << (BITS - 1)) - WINDOW
    numbering = Numbering(KEY, keyed_above)
    values = [numbering.permuted(i) for i in range(keyed_above + 1, keyed_above + 20_001)]
    assert len(set(values)) == len(values)
    assert min(values) >= keyed_above + WINDOW


def test_another_key_gives_another_sequence():
    ids = range(1, 2_001)
    one = [Numbering(KEY, 0).confirmation_number(i) for i in ids]
    other = [Numbering(bytes(reversed(KEY)), 0).confirmation_number(i) for i in ids]
    assert sum(a == b for a, b in zip(one, other)) == 0


def _ranks(values: list) -> list[int]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0] * len(values)
    for rank, index in enumerate(order):
        ranks[index] = rank
    return ranks


def test_numbers_show_no_order_of_the_bookings():
    numbering = Numbering(KEY, 0)
    ids = list(range(1, 20_001))
    numbers = [numbering.confirmation_number(i) for i in ids]
    # Spearman's rank correlation of id and number: 0 for no order (random: |rho| ~ 0.007).
    n, ranks = len(ids), _ranks(numbers)
    rho = 1 - 6 * sum((r - i) ** 2 for i, r in enumerate(ranks)) / (n * (n * n - 1))
    assert abs(rho) < 0.03, rho
    # A later booking's number is as often below the one before as above it.
    rising = sum(b > a for a, b in zip(numbers, numbers[1:])) / (n - 1)
    assert 0.48 < rising < 0.52, rising
    # Neighbours share no more characters than strangers (1 in 36 by chance, of 12).
    same = sum(x == y for a, b in zip(numbers, numbers[1:]) for x, y in zip(a[4:], b[4:]))
    assert same / (n - 1) < 1.0


@pytest.mark.parametrize("booking_id", [-1, 2 ** BITS, 2 ** BITS - WINDOW])
def test_an_id_outside_the_range_is_refused(booking_id):
    with pytest.raises(ValueError):
        Numbering(KEY, 0).confirmation_number(booking_id)
