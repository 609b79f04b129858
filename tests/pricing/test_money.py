"""Minor units, half-up rounding, FX lookup and per-night conversion."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from connectivity.pricing import (
    CurrencyNotSupported,
    FxTable,
    convert,
    convert_nights,
    minor_units,
    round_money,
    to_decimal,
)


@pytest.mark.parametrize("currency, units", [
    ("EUR", 2), ("USD", 2), ("GBP", 2), ("JPY", 0), ("KWD", 3), ("BHD", 3), ("jpy", 0),
])
def test_minor_units(currency, units):
    assert minor_units(currency) == units


@pytest.mark.parametrize("amount, currency, rounded", [
    ("10.005", "EUR", "10.01"),      # half up, not half even
    ("10.015", "EUR", "10.02"),
    ("10.0049", "EUR", "10.00"),
    ("-10.005", "EUR", "-10.01"),    # half away from zero
    ("10", "EUR", "10.00"),
    ("1234.5", "JPY", "1235"),
    ("1233.5", "JPY", "1234"),
    ("1234.49", "JPY", "1234"),
    ("1.2345", "KWD", "1.235"),
    ("1.2344", "KWD", "1.234"),
    ("7", "KWD", "7.000"),
])
def test_round_money(amount, currency, rounded):
    result = round_money(D(amount), currency)
    assert result == D(rounded)
    assert str(result) == rounded      # the exponent is the currency's, for the JSON number


@pytest.mark.parametrize("bad", [10.5, 10, "10.5"])
def test_round_money_refuses_anything_but_decimal(bad):
    with pytest.raises(TypeError):
        round_money(bad, "EUR")


def test_convert_is_unrounded_and_decimal_only():
    assert convert(D("100.01"), D("1.0850")) == D("108.510850")
    with pytest.raises(TypeError):
        convert(100.01, D("1.085"))  # type: ignore[arg-type]


@pytest.mark.parametrize("value, expected", [
    (12.5, D("12.5")), (0.1, D("0.1")), (3, D("3")), ("1.0850", D("1.0850")),
    (D("2.50"), D("2.50")),
])
def test_to_decimal(value, expected):
    assert to_decimal(value) == expected


@pytest.mark.parametrize("bad, error", [
    (True, TypeError), (None, TypeError), ("abc", ValueError), ("NaN", ValueError),
    (float("inf"), ValueError),
])
def test_to_decimal_refuses_non_amounts(bad, error):
    with pytest.raises(error):
        to_decimal(bad)


FX = FxTable.from_rows([("EUR", "USD", "1.0850"), {"base": "EUR", "quote": "GBP",
                                                   "rate": D("0.8600")},
                        ("USD", "JPY", 150)])


@pytest.mark.parametrize("source, target, rate", [
    ("EUR", "EUR", D(1)),
    ("JPY", "JPY", D(1)),                    # identity needs no row
    ("EUR", "USD", D("1.0850")),
    ("eur", "gbp", D("0.8600")),
    ("USD", "JPY", D(150)),
    # inverse of the reverse pair, to 16 places (the search SQL uses the same figure)
    ("USD", "EUR", D("0.9216589861751152")),
    ("JPY", "USD", D("0.0066666666666667")),
])
def test_fx_rate(source, target, rate):
    assert FX.rate(source, target) == rate


def test_fx_inverse_round_trips_within_a_minor_unit():
    back = round_money(convert(round_money(convert(D("100.00"), FX.rate("EUR", "USD")), "USD"),
                               FX.rate("USD", "EUR")), "EUR")
    assert abs(back - D("100.00")) <= D("0.01")


def test_fx_direct_row_wins_over_inverse():
    table = FxTable.from_rows([("EUR", "USD", "1.10"), ("USD", "EUR", "0.95")])
    assert table.rate("USD", "EUR") == D("0.95")


@pytest.mark.parametrize("source, target", [("EUR", "CHF"), ("GBP", "USD"), ("CHF", "EUR")])
def test_fx_unknown_pair_is_not_supported(source, target):
    # No cross rates: GBP->USD is not derived through EUR.
    with pytest.raises(CurrencyNotSupported) as info:
        FX.rate(source, target)
    assert (info.value.source, info.value.target) == (source, target)


@pytest.mark.parametrize("rate", ["0", "-1"])
def test_fx_rows_must_be_positive(rate):
    with pytest.raises(ValueError):
        FxTable.from_rows([("EUR", "USD", rate)])


def test_fx_table_is_read_only():
    with pytest.raises(TypeError):
        FX.rates[("EUR", "CHF")] = D(1)  # type: ignore[index]


@pytest.mark.parametrize("amounts, rate, currency, nights, total", [
    pytest.param(["100.00", "100.01", "100.02"], "1.0850", "USD",
                 ["108.50", "108.51", "108.52"], "325.53", id="EUR->USD"),
    pytest.param(["0.01", "0.01", "0.01"], "1.5", "USD", ["0.02", "0.02", "0.02"], "0.06",
                 id="sum of rounded nights, not rounded sum (0.045)"),
    pytest.param(["99.99", "120.00"], "162.345", "JPY", ["16233", "19481"], "35714",
                 id="to JPY: no decimals"),
    pytest.param(["10.00", "10.00"], "0.30715", "KWD", ["3.072", "3.072"], "6.144",
                 id="to KWD: three decimals"),
    pytest.param(["10.00", None], "1.0850", "USD", ["10.85", None], None,
                 id="a night without price leaves no total"),
])
def test_convert_nights(amounts, rate, currency, nights, total):
    result = convert_nights([None if a is None else D(a) for a in amounts], D(rate), currency)
    assert [None if a is None else str(a) for a in result.amounts] == nights
    assert (None if result.total is None else str(result.total)) == total
