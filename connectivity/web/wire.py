"""Wire conventions of contract section 1 that apply before any view runs: the request id, the
body size cap, the JSON media type and well-formed JSON."""

from __future__ import annotations

import json
import math
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
# Contract section 1: deeper than this many arrays and objects is 400 malformed_json. No request
# of the API nests more than 5; the bound keeps every recursive reader after the parse (the
# unstorable-text scan, marshmallow) far from Python's recursion limit.
MAX_NESTING = 64
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


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """An object whose keys all differ (I-JSON, RFC 7493 2.3): of a key sent twice, which value
    counts depends on the parser, and a partner's own logs or proxy may have read the other."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise MalformedJson(f"the key {_shown(key)} appears twice in one object")
            seen.add(key)
    return obj


def _finite_number(text: str) -> float:
    """A JSON number with a fraction or exponent. One past a 64-bit float's range (1e400) reads
    as infinity, which no field takes and JSON cannot write back (I-JSON 2.2)."""
    value = float(text)
    if value in _INFINITIES:
        raise MalformedJson(f"the number {_shown(text)} is beyond the range of a 64-bit float")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # past Python's digit limit for reading an integer (4,300 by default)
        raise MalformedJson(f"the number {_shown(text)} has too many digits "
                            f"({len(text.lstrip('-'))})") from None


_INFINITIES = (math.inf, -math.inf)


def _shown(text: str) -> str:
    """A partner's key or number as a message quotes it: as JSON, at most 40 characters."""
    return json.dumps(text if len(text) <= 40 else text[:37] + "...")


def _nesting_exceeds(value, limit: int) -> bool:
    """Whether arrays and objects nest deeper than `limit` in a parsed body; level by level,
    with no recursion, so that no depth can exhaust the stack."""
    level, depth = [value], 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [child for container in level
                 for child in (container.values() if type(container) is dict else container)
                 if type(child) is dict or type(child) is list]
    return False


def _too_deep() -> MalformedJson:
    return MalformedJson(f"the body nests arrays and objects deeper than {MAX_NESTING} levels")


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
        body = json.loads(raw.decode("utf-8"), parse_constant=_no_constants,
                          object_pairs_hook=_unique_keys, parse_float=_finite_number,
                          parse_int=_integer)
    except RecursionError:
        # The C parser nests a call per level and stops at the interpreter's recursion limit
        # (about 1,000 levels), long past MAX_NESTING.
        raise _too_deep() from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise MalformedJson(f"the body is not well-formed JSON: {exc}") from None
    # Fewer brackets than the bound cannot nest past it: most bodies skip the walk.
    if raw.count(b"[") + raw.count(b"{") > MAX_NESTING and _nesting_exceeds(body, MAX_NESTING):
        raise _too_deep()
    g.json_body = body
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


def forget_request(_exc=None) -> None:
    """teardown_request: the request's log context ends with it, so that a later line of the
    same thread (gunicorn refusing the next connection's request line, a pool's warning) does
    not carry this request's id."""
    structlog.contextvars.clear_contextvars()


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
