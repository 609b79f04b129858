"""A fast first reading of PUT /ari's items, for the common case where all of them are valid.

Reading each item through marshmallow is most of a 5,000-item push's time
(docs/benchmarks-history.md, "ARI push: acceptance and apply"). This reads an item at a small
fraction of that cost, and only ever says "plainly valid, loaded like this" or "not sure": at the
first item it is not sure of, the request goes through AriItemSchema as usual, which stays the
one judge of what is invalid and the one source of every error message and of the OpenAPI
description. A property test holds the two to one answer: what this accepts, the schema accepts
and loads the same way."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation

from connectivity.ari.limits import AVAILABILITY, MAX_ARI_ITEMS, STAY_NIGHTS
from connectivity.web.fields import AMOUNT_TEXT, amount_problem
from connectivity.web.validators import CURRENCY_CODES, PARTNER_CODE_RE

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}\Z")
_INTEGERS = {"availability": AVAILABILITY, "min_stay": STAY_NIGHTS, "max_stay": STAY_NIGHTS}
_AMOUNTS = ("rate", "single_rate", "extra_adult_rate", "extra_child_rate")
_FLAGS = ("closed", "closed_to_arrival", "closed_to_departure")
_CODES = ("room_type_code", "rate_plan_code")
_CURRENCIES = frozenset(CURRENCY_CODES)
FIELDS = frozenset({"date", "currency", *_INTEGERS, *_AMOUNTS, *_FLAGS, *_CODES})


def quick_ari_items(items) -> list[dict] | None:
    """Every item loaded as AriItemSchema would, or None as soon as one is not plainly valid."""
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_ARI_ITEMS:
        return None
    loaded = []
    for item in items:
        one = _item(item)
        if one is None:
            return None
        loaded.append(one)
    return loaded


def _item(item) -> dict | None:
    if not isinstance(item, dict) or not item.keys() <= FIELDS:
        return None
    if "room_type_code" not in item or "date" not in item:
        return None
    out = {}
    for name, value in item.items():
        if name in _CODES:
            if type(value) is not str or not PARTNER_CODE_RE.match(value):
                return None
        elif name == "date":
            if type(value) is not str or not _DAY.match(value):
                return None
            try:
                value = dt.date.fromisoformat(value)
            except ValueError:
                return None
        elif name in _INTEGERS:
            low, high = _INTEGERS[name]
            if type(value) is not int or not low <= value <= high:
                return None
        elif name in _AMOUNTS:
            if type(value) not in (int, float, str) or (
                    type(value) is str and not AMOUNT_TEXT.match(value)):
                return None
            try:
                value = Decimal(str(value))
            except InvalidOperation:
                return None
            if not value.is_finite() or amount_problem(value):
                return None
        elif name in _FLAGS:
            if type(value) is not bool:
                return None
        elif name == "currency":
            if type(value) is not str or value not in _CURRENCIES:
                return None
        out[name] = value
    return out
