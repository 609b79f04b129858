"""An amount's JSON number (web/fields.money_number), which keeps the numbers of the amounts it
wrote lately: what it gives must not depend on what it gave before."""

from __future__ import annotations

from decimal import Decimal

import pytest

from connectivity.web.fields import money_number


def test_the_same_value_written_with_other_digits_gives_the_same_number():
    assert money_number(Decimal("150.00")) == 150 and type(money_number(Decimal("150"))) is int
    assert money_number(Decimal("1.10")) == money_number(Decimal("1.1")) == 1.1
    assert type(money_number(Decimal("1.10"))) is float


@pytest.mark.parametrize("value", [150, 150.0, "150", None])
def test_anything_but_a_decimal_is_refused_even_after_an_equal_decimal(value):
    money_number(Decimal("150"))
    with pytest.raises(TypeError):
        money_number(value)
