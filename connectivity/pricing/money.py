"""Money: minor units, rounding and currency conversion, all in Decimal.

Amounts are rounded only where the contract says a figure becomes visible to a partner (a night's
amount, a penalty); totals are sums of those rounded figures, so a partner adding up the nights it
was shown always lands on the total it was shown (contract section 10).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import cache
from types import MappingProxyType

from babel.numbers import get_currency_precision

__all__ = [
    "CurrencyNotSupported",
    "ConvertedNights",
    "FxTable",
    "convert",
    "convert_nights",
    "minor_units",
    "round_money",
    "to_decimal",
]


# Decimal places of an inverted FX rate: ample for any pair (rates are numeric(20, 10)).
INVERSE_PLACES = 16
INVERSE_EXPONENT = Decimal(1).scaleb(-INVERSE_PLACES)


class CurrencyNotSupported(Exception):
    """No FX rate links the two currencies; the API answers 422 `currency_not_supported`."""

    def __init__(self, source: str, target: str):
        super().__init__(f"no exchange rate from {source} to {target}")
        self.source = source
        self.target = target


def to_decimal(value: Decimal | int | str | float) -> Decimal:
    """A Decimal from a JSON-ish number.

    A float goes through its shortest repr ("12.5", not 12.4999...), which is what the partner
    wrote in the JSON document it came from; booleans are refused because JSON `true` is not 1.
    """
    if isinstance(value, bool):
        raise TypeError("a boolean is not an amount")
    if isinstance(value, Decimal):
        result = value
    elif isinstance(value, float):
        result = Decimal(repr(value))
    elif isinstance(value, (int, str)):
        try:
            result = Decimal(value)
        except InvalidOperation:
            raise ValueError(f"not an amount: {value!r}") from None
    else:
        raise TypeError(f"not an amount: {value!r}")
    if not result.is_finite():
        # NaN and Infinity parse as Decimals but are never prices.
        raise ValueError(f"not a finite amount: {value!r}")
    return result


@cache
def minor_units(currency: str) -> int:
    """Decimal places of a currency: 2 for EUR, 0 for JPY, 3 for KWD (CLDR data via babel).

    Babel answers 2 for codes it does not know; validating the code is the schema's job.
    Cached: babel's lookup costs more than the rounding it serves, and every priced night of
    rates and every hotel of a search asks it (CLDR data do not change while a process runs).
    """
    return get_currency_precision(currency.upper())


@cache
def _unit(currency: str) -> Decimal:
    return Decimal(1).scaleb(-minor_units(currency))


def round_money(amount: Decimal, currency: str) -> Decimal:
    """Half-up to the currency's minor units: what a partner expects from an invoice, and
    unlike banker's rounding it does not depend on the parity of the last kept digit."""
    if not isinstance(amount, Decimal):
        # A float here would already have lost cents; fail loudly instead.
        raise TypeError(f"round_money wants a Decimal, got {type(amount).__name__}")
    return amount.quantize(_unit(currency), rounding=ROUND_HALF_UP)


def convert(amount: Decimal, rate: Decimal) -> Decimal:
    """Amount in the target currency, unrounded: the caller rounds where the figure is shown."""
    if not isinstance(amount, Decimal) or not isinstance(rate, Decimal):
        raise TypeError("convert wants Decimal amount and rate")
    return amount * rate


@dataclass(frozen=True)
class ConvertedNights:
    """Per-night amounts in the target currency and their total (None when a night has none)."""

    amounts: tuple[Decimal | None, ...]
    total: Decimal | None


def convert_nights(amounts: Sequence[Decimal | None], rate: Decimal,
                   currency: str) -> ConvertedNights:
    """Convert night by night, round each night, and sum the rounded nights.

    Converting the total instead could differ from the sum of the shown nights by a minor unit,
    and the partner would see a total that its own nights do not add up to.
    """
    converted = tuple(None if a is None else round_money(convert(a, rate), currency)
                      for a in amounts)
    total = None if any(a is None for a in converted) else sum(converted, Decimal(0))
    if total is not None:
        total = round_money(total, currency)  # only normalises the exponent of an empty sum
    return ConvertedNights(converted, total)


@dataclass(frozen=True)
class FxTable:
    """The operator's FX rates: `rates[(base, quote)]` is quote units per one unit of base,
    as in the catalogue's `fx_rates` rows and the `fx_rates` table."""

    # Read-only view, so a shared table cannot be changed under a request; not part of the hash.
    rates: Mapping[tuple[str, str], Decimal] = field(
        default_factory=lambda: MappingProxyType({}), hash=False)

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, Decimal | str | int]
                                      | dict]) -> FxTable:
        """Rows as (base, quote, rate) tuples or {"base", "quote", "rate"} dicts."""
        rates: dict[tuple[str, str], Decimal] = {}
        for row in rows:
            if isinstance(row, dict):
                base, quote, rate = row["base"], row["quote"], row["rate"]
            else:
                base, quote, rate = row
            value = to_decimal(rate)
            if value <= 0:
                raise ValueError(f"FX rate {base}->{quote} must be positive, got {value}")
            rates[(base.upper(), quote.upper())] = value
        return cls(MappingProxyType(rates))

    def rate(self, source: str, target: str) -> Decimal:
        """Multiplier taking an amount in `source` to `target`.

        The operator loads each pair once, in one direction; the reverse direction is its
        inverse so that EUR->USD and USD->EUR can never drift apart. A direct row wins over an
        inverted one. No cross rates through a third currency: the operator decides which pairs
        are sold.
        """
        source, target = source.upper(), target.upper()
        if source == target:
            return Decimal(1)
        direct = self.rates.get((source, target))
        if direct is not None:
            return direct
        reverse = self.rates.get((target, source))
        if reverse is not None:
            # Fixed to INVERSE_PLACES so that the search SQL, which converts in PostgreSQL,
            # uses the very same multiplier (sql/queries/availability/search.sql).
            return (Decimal(1) / reverse).quantize(INVERSE_EXPONENT, rounding=ROUND_HALF_UP)
        raise CurrencyNotSupported(source, target)
