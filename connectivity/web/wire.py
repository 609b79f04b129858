"""Wire conventions of contract section 1 that apply before any view runs: the request id, the
body size cap, the JSON media type and well-formed JSON."""

from __future__ import annotations

import json
import re
import time
import uuid

import structlog
from flask import Response, current_app, g, request

from connectivity.web.api import operation_id
from connectivity.web.errors import (MalformedJson, PayloadTooLarge, UnsupportedMediaType,
                                     ValidationFailed)

REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9._-]{1,128}\Z")
BODY_METHODS = {"POST", "PUT", "PATCH"}
# A JSON string can carry U+0000 and lone UTF-16 surrogates, but only written as \u escapes
# (raw, the first is not JSON and the second not UTF-8). PostgreSQL's text stores neither.
_UNSTORABLE_ESCAPE = re.compile(rb"\\u(?:0000|[dD][89a-fA-F])")

log = structlog.get_logger("connectivity.request")


def assign_request_id() -> None:
    # `g` and `request` are context-local proxies: each use looks the object up again, so the
    # hooks that run on every request resolve them once.
    state = g._get_current_object()
    state.started = time.perf_counter()
    sent = request._get_current_object().headers.get("X-Request-Id", "")
    state.request_id = sent if REQUEST_ID_RE.match(sent) else uuid.uuid4().hex
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(request_id=state.request_id)


def enforce_body_cap() -> None:
    # Refused on the declared length, before a byte of the body is read; a body sent without a
    # length is cut off by MAX_CONTENT_LENGTH while it is read.
    req = request._get_current_object()
    if req.routing_exception is not None:
        return  # routing answers first: an unknown path is 404 whatever its body
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    declared = req.content_length
    if declared is not None and declared > limit:
        raise PayloadTooLarge(f"the body is larger than {limit} bytes")


def _no_constants(name: str):
    raise ValueError(f"{name} is not JSON")


def parse_json_body() -> None:
    """For the API's body-carrying operations: an absent body is left to the schema (its
    required fields fail with 422), a present one must be JSON and well formed."""
    req = request._get_current_object()
    if req.routing_exception is not None or req.method not in BODY_METHODS:
        return
    if operation_id(current_app.view_functions.get(req.endpoint)) is None:
        return
    raw = req.get_data(cache=True)
    if not raw.strip():
        return
    if not req.is_json:
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
    state, req = g._get_current_object(), request._get_current_object()
    headers = response.headers
    headers["X-Request-Id"] = getattr(state, "request_id", "")
    decision = getattr(state, "rate_limit", None)
    if decision is not None:
        for name, value in decision.headers().items():
            headers[name] = value
    started = getattr(state, "started", None)
    elapsed_ms = round((time.perf_counter() - started) * 1000, 2) if started is not None else None
    log.info("request", method=req.method, path=req.path, status=response.status_code,
             duration_ms=elapsed_ms)
    return response
