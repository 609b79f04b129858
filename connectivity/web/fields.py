"""marshmallow fields for the wire formats of contract section 1 that marshmallow's own fields
read too loosely (dates) or write in the wrong JSON type (money)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from functools import lru_cache

from marshmallow import ValidationError, fields, validate

from connectivity.web import validators

_DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}\Z")
# An amount sent as a string: digits, an optional fraction; no exponent, no spaces, no commas.
AMOUNT_TEXT = re.compile(r"-?\d+(\.\d+)?\Z")


class Day(fields.Date):
    """A calendar date written exactly `YYYY-MM-DD`.

    marshmallow's Date also takes `20261121` and ISO week dates (`2026-W47-1`); a partner who
    sends those has a bug we should tell them about, not guess around."""

    def _deserialize(self, value, attr, data, **kwargs) -> dt.date:
        if not isinstance(value, str) or not _DAY_RE.match(value):
            raise ValidationError("must be a date written YYYY-MM-DD")
        return super()._deserialize(value, attr, data, **kwargs)


class Money(fields.Field):
    """An amount already rounded to its currency's minor units, written as a JSON number.

    Flask's JSON encoder writes a Decimal as a string; the contract wants numbers. A whole amount
    is written as an integer (`150`, not `150.0`); anything else through float, whose shortest
    repr gives back the same digits for any amount below 10^15."""

    def __init__(self, **kwargs):
        kwargs.setdefault("metadata", {})
        kwargs["metadata"] = {"type": "number", **kwargs["metadata"]}
        super().__init__(**kwargs)

    def _serialize(self, value, attr, obj, **kwargs):
        return None if value is None else money_number(value)


# Search writes up to 200 amounts an answer, mostly ones written lately (the same prices found
# again): their numbers are kept. `typed`: the integer 150 is equal to Decimal(150), and must
# still be refused.
@lru_cache(maxsize=1 << 16, typed=True)
def money_number(value: Decimal) -> int | float:
    """A rounded amount as the JSON number Money writes."""
    if not isinstance(value, Decimal):
        raise TypeError(f"Money wants a Decimal, got {type(value).__name__}")
    return int(value) if value == value.to_integral_value() else float(value)


class Amount(fields.Decimal):
    """An amount a partner sends: a JSON number or a numeric string (contract section 1), at
    least 0, read exactly as written (a JSON 0.1 is 0.1, never the float nearest to it).

    Bounded, because a bound nobody sets is one PostgreSQL sets with an error: no more than 12
    digits before the point (a nightly rate, a stay's total) and 6 after it."""

    MAX = Decimal("1e12")
    PLACES = 6

    def __init__(self, **kwargs):
        kwargs.setdefault("metadata", {})
        # OpenAPI 3.0 form of "below 1e12": a boolean exclusiveMaximum beside maximum (a bare
        # number there is 3.1's form, and makes the 3.0 description invalid).
        # The decimal places are said in words: `multipleOf` on a JSON number is float
        # arithmetic, which no two implementations agree on.
        described = kwargs["metadata"].get("description")
        places = f"at most {self.PLACES} decimal places"
        kwargs["metadata"] = {"type": "number", "minimum": 0, "maximum": 10 ** 12,
                              "exclusiveMaximum": True,
                              **kwargs["metadata"],
                              "description": f"{described}; {places}" if described
                              else places.capitalize()}
        super().__init__(as_string=False, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> Decimal:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValidationError("must be a number or a numeric string")
        if isinstance(value, str) and not AMOUNT_TEXT.match(value):
            raise ValidationError("must be a number written with digits, e.g. 120.50")
        amount = super()._deserialize(value, attr, data, **kwargs)
        problem = amount_problem(amount)
        if problem:
            raise ValidationError(problem)
        return amount


def amount_problem(amount: Decimal) -> str | None:
    """What is wrong with a finite amount a partner sent (Amount's bounds), or None."""
    if amount < 0:
        return "must be at least 0"
    if amount >= Amount.MAX:
        return "must be less than 1000000000000"
    if amount.as_tuple().exponent < -Amount.PLACES and amount != amount.quantize(
            _SMALLEST_PLACE):
        return f"must have at most {Amount.PLACES} decimal places"
    return None


_SMALLEST_PLACE = Decimal(1).scaleb(-Amount.PLACES)


class Flag(fields.Boolean):
    """A JSON `true` or `false`, nothing else: marshmallow's Boolean also reads "yes", "on", 1
    and "f", and a partner who sends those has a bug to hear about, not a guess."""

    def _deserialize(self, value, attr, data, **kwargs) -> bool:
        if not isinstance(value, bool):
            raise ValidationError("must be true or false")
        return value


class QueryFlag(fields.Field):
    """`true` or `false` in a query string, nothing else (`1`, `yes`, `maybe` are refused)."""

    def __init__(self, **kwargs):
        kwargs["metadata"] = {"type": "boolean", **kwargs.get("metadata", {})}
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> bool:
        if value not in ("true", "false"):
            raise ValidationError("must be true or false")
        return value == "true"


# Free text a partner sends (names, phone numbers, requests, reasons). Control characters have no
# place in it (NUL above all: PostgreSQL cannot store it in text or jsonb); tab and newline do
# where the text may run over lines. A lone surrogate (JSON allows "\ud800") cannot be encoded
# for PostgreSQL either; the description's regex dialect cannot name one, so wire.py refuses it
# in any body.
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
_CONTROL_BUT_LINES_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
NO_CONTROL_PATTERN = r"^[^\x00-\x1f\x7f]*$"
NO_CONTROL_BUT_LINES_PATTERN = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]*$"


def Text(max_length: int, *, lines: bool = False, **kwargs) -> fields.String:
    """1 to `max_length` characters of printable text (`lines`: tabs and line breaks too)."""
    forbidden = _CONTROL_BUT_LINES_RE if lines else _CONTROL_RE

    def printable(value: str) -> None:
        if forbidden.search(value):
            raise ValidationError("must not contain control characters")
    return fields.String(validate=[validate.Length(min=1, max=max_length), printable],
                         **_described({"pattern": NO_CONTROL_BUT_LINES_PATTERN if lines
                                       else NO_CONTROL_PATTERN}, kwargs))


# The request fields whose rule is one of validators', each with that rule in the description
# too (pattern or enum, from the same source), so that a client generated from the description
# sends only what is accepted. Extra `metadata` (a description, an example) is merged in.
def _described(rule: dict, kwargs: dict) -> dict:
    kwargs["metadata"] = {**rule, **kwargs.get("metadata", {})}
    return kwargs


def PartnerCode(**kwargs) -> fields.String:
    """A partner's own hotel, room type or rate plan code."""
    return fields.String(validate=validators.partner_code, **_described(
        {"pattern": validators.PARTNER_CODE_PATTERN, "minLength": 1,
         "maxLength": validators.PARTNER_CODE_MAX_LENGTH}, kwargs))


class PartnerCodes(fields.List):
    """A JSON list of partner codes (PartnerCode each): a search's 200 hotel codes.

    The same rule and messages as `fields.List(PartnerCode())`, which calls a field and its
    validator per item: a third of a millisecond per 200-code search, about a tenth of what the
    search costs. A list whose items are all valid codes is taken in one pass; any other goes
    through the list's own per-item path, which names each bad item as before."""

    def __init__(self, **kwargs):
        super().__init__(PartnerCode(), **kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> list[str]:
        valid = validators.PARTNER_CODE_RE.match
        if type(value) is list and all(type(code) is str and valid(code) for code in value):
            return list(value)
        return super()._deserialize(value, attr, data, **kwargs)


def Reference(**kwargs) -> fields.String:
    """A booking's or pushed reservation's partner_reference."""
    return fields.String(validate=validators.reference, **_described(
        {"pattern": validators.REFERENCE_PATTERN, "minLength": 1,
         "maxLength": validators.REFERENCE_MAX_LENGTH}, kwargs))


# The code lists, each one named schema of the description that the fields refer to (a client
# generated from it gets one CountryCode and one CurrencyCode type, not one list per field).
CODE_LISTS = {
    "CountryCode": {"type": "string", "enum": validators.COUNTRY_CODES,
                    "description": "ISO 3166-1 alpha-2 country code"},
    "CurrencyCode": {"type": "string", "enum": validators.CURRENCY_CODES,
                     "description": "ISO 4217 currency code"},
}


def register_code_lists(spec) -> None:
    for name, schema in CODE_LISTS.items():
        spec.components.schema(name, schema)


def _code_list(name: str) -> dict:
    return {"allOf": [{"$ref": f"#/components/schemas/{name}"}],
            "description": CODE_LISTS[name]["description"]}


def CountryCode(**kwargs) -> fields.String:
    return fields.String(validate=validators.country_code,
                         **_described(_code_list("CountryCode"), kwargs))


def CurrencyCode(**kwargs) -> fields.String:
    return fields.String(validate=validators.currency_code,
                         **_described(_code_list("CurrencyCode"), kwargs))


def EmailAddress(**kwargs) -> fields.String:
    return fields.String(validate=validators.email_address, **_described(
        {"format": "email", "maxLength": 255,
         "description": "valid by a standard e-mail validator, which also bounds the parts "
                        "(at most 64 characters before the @, 254 in all)"}, kwargs))


class PartnerCodeList(fields.Field):
    """Partner codes in a query string, comma-separated (`A,B,C`), each by the partner-code
    rule, at most `max_count` of them; loaded as a list without repeats, in the order sent.

    No `example`: the docs page's "Try it out" fills a parameter with its example, and a filter
    filled in unasked hides the rest of the answer. Optional parameters start empty there."""

    def __init__(self, max_count: int, **kwargs):
        self.max_count = max_count
        # The description's pattern: the partner-code rule without commas, 1 to max_count times.
        code = validators.PARTNER_CODE.replace("[^", "[^,", 1)
        kwargs["metadata"] = {"type": "string",
                              "pattern": f"^{code}(,{code}){{0,{max_count - 1}}}$",
                              **kwargs.get("metadata", {})}
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> list[str]:
        if not isinstance(value, str) or not value:
            raise ValidationError("must be one or more codes separated by commas")
        codes = list(dict.fromkeys(value.split(",")))
        if len(codes) > self.max_count:
            raise ValidationError(f"must name at most {self.max_count} codes")
        bad = [code for code in codes if not validators.PARTNER_CODE_RE.match(code)]
        if bad:
            raise ValidationError(f"each code must be 1-{validators.PARTNER_CODE_MAX_LENGTH} "
                                  "characters, without '/' or control characters (an empty code "
                                  "between commas is one)")
        return codes


# Paged reads (the change feed, the event log, the bookings list): a cursor and a page size.
MAX_CURSOR_LENGTH = 200  # the contract's, for every cursor
# A listing's cursor (bookings, deliveries) that the service did not give for this list: 422
# naming `cursor`. (A feed's, past its horizon or not ours, is 410 cursor_expired instead.)
FOREIGN_CURSOR = "not a cursor of this list: use next_cursor as given, or start again without one"


def PageCursor(description: str) -> fields.String:
    """An opaque cursor, as an answer's `next_cursor` gave it."""
    return fields.String(validate=validate.Length(min=1, max=MAX_CURSOR_LENGTH),
                         metadata={"description": description})


def PageLimit(default: int, maximum: int, what: str) -> fields.Integer:
    """A page size from 1 to `maximum`; `what` a page holds, for the description."""
    return fields.Integer(load_default=default, validate=validate.Range(1, maximum),
                          metadata={"description": f"most {what} in the page"})
