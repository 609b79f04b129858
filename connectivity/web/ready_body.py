"""Success bodies written without a marshmallow dump (search, rates, ping).

The result schemas of search and rates stay what describes those answers (OpenAPI) and what
their tests hold them to, but dumping a 14-night rates answer through them (3,000-odd fields,
each a schema-field call) is a large share of the endpoint's CPU (docs/benchmarks-history.md,
"The search statement"). Their payloads are already in the schema's shape, with values of a few
plain types, so the JSON encoder writes them as they are and asks `json_value` only about what
it does not know: an amount (the JSON number Money writes) and a date (ISO 8601). Rates' fast
path (availability/rates_grid.py) hands its 420-odd amounts as those numbers already, each made
once per price point, rather than a call back into Python per night.

The encoder is orjson (as GET /ari's read-back): a quarter of the stdlib's CPU for a 420-night
rates answer. The values are the same: dates and times still go through `json_value`
(OPT_PASSTHROUGH_DATETIME, so they stay `isoformat()`'s), and an amount is still the int or
float Money writes, in its shortest round-trip digits as the stdlib writes it. The text differs
only in non-ASCII characters (a hotel code, a policy's text), written as UTF-8 rather than
\\u escapes: the same JSON.
tests/availability/test_ready_body.py holds each such answer equal, as JSON text, to its
schema's dump.
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import Any

import orjson
from flask import Response

from connectivity.web.envelope import success_body
from connectivity.web.fields import money_number


def json_value(value: Any) -> Any:
    """The JSON form of a value the encoder does not know (orjson's `default`): also what
    bench.rates_digest writes answers with, so that it compares them as the API writes them."""
    if isinstance(value, Decimal):
        return money_number(value)
    if isinstance(value, (dt.date, dt.datetime)):  # a datetime is a date too
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} has no JSON form in a ready body")


def ready_response(payload: dict, *, dates_only: bool = False) -> Response:
    """The success envelope around `payload`; flask-smorest passes a Response through as is.
    Written compact and in the payload's key order, as the app's other JSON answers are
    (`app.json.sort_keys` is off).

    `dates_only`: the payload holds dates but no datetime (rates: a date a night). orjson then
    writes the dates itself, as `isoformat()` does (a date has no other form); a datetime it
    would write otherwise than `isoformat()` when its UTC offset has seconds, so payloads
    that may hold one pass them to `json_value`."""
    options = orjson.OPT_APPEND_NEWLINE
    if not dates_only:
        options |= orjson.OPT_PASSTHROUGH_DATETIME
    body = orjson.dumps(success_body(payload), default=json_value, option=options)
    return Response(body, mimetype="application/json")


def ready_json_response(data_json: str | bytes) -> Response:
    """The success envelope around `data` that is JSON already: text written by PostgreSQL
    (the dry run, the change feed) or bytes written by orjson (the read-back of GET /ari)."""
    if isinstance(data_json, str):
        data_json = data_json.encode()
    body = b"".join((b'{"success":true,"data":', data_json, b',"request_id":',
                     json.dumps(success_body({})["request_id"]).encode(), b"}\n"))
    return Response(body, mimetype="application/json")
