"""spread_total: a quoted total laid over the live nights."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from connectivity.pricing.spread import spread_total

D = Decimal


@pytest.mark.parametrize("amounts, total, currency, expected", [
    (["100.00", "100.00"], "200.00", "EUR", ["100.00", "100.00"]),   # unchanged price
    (["160.00", "100.00", "100.00"], "300.00", "EUR", ["133.33", "83.33", "83.34"]),
    (["0", "0", "0"], "100", "EUR", ["33.33", "33.33", "33.34"]),
    (["1000", "2000"], "2999", "JPY", ["999", "2000"]),
])
def test_table(amounts, total, currency, expected):
    assert spread_total([D(a) for a in amounts], D(total), currency) == tuple(D(e) for e in expected)


amounts = st.lists(st.decimals(0, 10000, places=2), min_size=1, max_size=30)


@given(amounts, st.decimals(0, 100000, places=2))
def test_sums_to_the_total_and_is_never_negative(nights, total):
    spread = spread_total(nights, total, "EUR")
    assert sum(spread) == total
    assert len(spread) == len(nights) and all(n >= 0 for n in spread)
    assert all(n.as_tuple().exponent == -2 for n in spread)
