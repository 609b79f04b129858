"""marshmallow fields for the wire formats of contract section 1 that marshmallow's own fields
read too loosely (dates) or write in the wrong JSON type (money)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

from marshmallow import ValidationError, fields

_DAY_RE = re.compile(r"^\d{4}-\d{2}-\d{2}\Z")


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
        if value is None:
            return None
        if not isinstance(value, Decimal):
            raise TypeError(f"Money wants a Decimal, got {type(value).__name__}")
        return int(value) if value == value.to_integral_value() else float(value)
