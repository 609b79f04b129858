"""Confirmation numbers are a permutation of booking ids (issue 17): unique without a unique key
across shards, in the contract's format, and not consecutive for consecutive bookings."""

from __future__ import annotations

import re

import pytest

from connectivity.bookings.confirmation import confirmation_number, permute

FORMAT = re.compile(r"^PCS-[A-Z0-9]{12}$")


def test_consecutive_ids_give_distinct_numbers_in_the_format():
    numbers = [confirmation_number(i) for i in range(1, 200_001)]
    assert len(set(numbers)) == len(numbers)
    assert all(FORMAT.match(n) for n in numbers[:1000])


@pytest.mark.parametrize("start", [0, 2**31 - 5, 2**40, 2**62 - 1000])
def test_the_permutation_is_one_to_one_anywhere_in_its_range(start):
    values = [permute(i) for i in range(start, start + 1000)]
    assert len(set(values)) == 1000 and all(0 <= v < 2**62 for v in values)


def test_neighbours_do_not_look_alike():
    a, b = confirmation_number(41), confirmation_number(42)
    assert sum(x == y for x, y in zip(a[4:], b[4:])) < 6


@pytest.mark.parametrize("booking_id", [-1, 2**62])
def test_an_id_outside_the_range_is_refused(booking_id):
    with pytest.raises(ValueError):
        confirmation_number(booking_id)
