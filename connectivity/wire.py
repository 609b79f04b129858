"""Wire conventions of contract section 1 that apply before any view runs: the request id, the
body size cap, the JSON media type and well-formed JSON."""

from __future__ import annotations

import json
import re
import time
import uuid

import structlog
from flask import Response, current_app, g, request

from .auth.access import policy_of
from .errors import MalformedJson, PayloadTooLarge, UnsupportedMediaType, ValidationFailed

REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9._-]{1,128}\Z")
BODY_METHODS = {"POST", "PUT", "PATCH"}
# A JSON string can carry U+0000 and lone UTF-16 surrogates, but only written as \u escapes
# (raw, the first is not JSON and the second not UTF-8). PostgreSQL's text stores neither.
_UNSTORABLE_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")

log = structlog.get_logger("connectivity.request")


def assign_request_id() -> None:
    g.started = time.perf_counter()
    sent = request.headers.get("X-Request-Id", "")
    g.request_id = sent if REQUEST_ID_RE.match(sent) else uuid.uuid4().hex
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(request_id=g.request_id)


def enforce_body_cap() -> None:
    # Refused on the declared length, before a byte of the body is read; a body sent without a
    # length is cut off by MAX_CONTENT_LENGTH while it is read.
    if request.routing_exception is not None:
        return  # routing answers first: an unknown path is 404 whatever its body
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    if request.content_length is not None and request.content_length > limit:
        raise PayloadTooLarge(f"the body is larger than {limit} bytes")


def _no_constants(name: str):
    raise ValueError(f"{name} is not JSON")


def parse_json_body() -> None:
    """For the API's body-carrying routes: an absent body is left to the schema (its required
    fields fail with 422), a present one must be JSON and well formed."""
    if request.routing_exception is not None or request.method not in BODY_METHODS:
        return
    if policy_of(request.endpoint) is None:
        return
    raw = request.get_data(cache=True)
    if not raw.strip():
        return
    if not request.is_json:
        raise UnsupportedMediaType("request bodies must be sent as Content-Type: application/json")
    try:
        # Parsed once, here, under the contract's rules; schemas read g.json_body (api.py).
        g.json_body = json.loads(raw.decode("utf-8"), parse_constant=_no_constants)
    except (UnicodeDecodeError, ValueError) as exc:
        raise MalformedJson(f"the body is not well-formed JSON: {exc}") from None
    if _UNSTORABLE_ESCAPE.search(raw):
        unstorable = dict(_unstorable_strings(g.json_body, ""))
        if unstorable:
            raise ValidationFailed(unstorable)


def _unstorable_strings(value, path: str):
    """(path, message) of every string (key or value) holding U+0000 or a lone surrogate."""
    if isinstance(value, str):
        if "\x00" in value:
            yield path or "body", ["must not contain the NUL character (U+0000)"]
        elif any("\ud800" <= ch <= "\udfff" for ch in value):
            yield path or "body", ["must be valid Unicode text (a lone surrogate is not)"]
    elif isinstance(value, dict):
        for key, item in value.items():
            inner = f"{path}.{key}" if path else key
            yield from _unstorable_strings(key, inner)
            yield from _unstorable_strings(item, inner)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _unstorable_strings(item, f"{path}.{index}" if path else str(index))


def finish_response(response: Response) -> Response:
    response.headers["X-Request-Id"] = getattr(g, "request_id", "")
    decision = getattr(g, "rate_limit", None)
    if decision is not None:
        response.headers.update(decision.headers())
    elapsed_ms = (time.perf_counter() - g.started) * 1000 if "started" in g else None
    log.info("request", method=request.method, path=request.path, status=response.status_code,
             duration_ms=round(elapsed_ms, 2) if elapsed_ms is not None else None)
    return response
