"""flask-smorest wiring: the OpenAPI description generated from the schemas that validate, its
docs page, and every failure (ours, Werkzeug's, webargs', unexpected ones) answered in the one
envelope with a catalogue code."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import psycopg
import structlog
from apispec import BasePlugin
from flask import Flask, g
from flask_smorest import Api, Blueprint
from psycopg_pool import PoolTimeout
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import HTTPException

from connectivity.web.fields import register_code_lists
from connectivity import API_PREFIX
from connectivity.store.faults import unreachable
from connectivity.web import forced_outcomes
from connectivity.web.catalogue import CATALOGUE, api_section
from connectivity.web.envelope import ErrorEnvelopeSchema, error_response
from connectivity.web.error_responses import register_error_responses
from connectivity.web.errors import ApiError, flatten_messages

log = structlog.get_logger("connectivity.errors")

# Werkzeug/webargs statuses -> the catalogue's code and a message a partner can act on; any
# other status the framework raises is answered with 500's.
HTTP_CODES = {entry.status: (entry.code, entry.framework_message)
              for entry in CATALOGUE if entry.framework_message is not None}

DESCRIPTION = """\
The REST API through which channel managers and resellers connect to the hotel-distribution
system: a pull side (mappings, availability, rates, quotes and bookings) and a push side (rates,
inventory, restrictions and already-confirmed reservations).

**Authentication.** Unsigned keys send `Authorization: Bearer <key_id>.<secret>`. Keys with
`requires_signature` send `X-Api-Key-Id`, `X-Timestamp` (unix seconds, within 300 s of the server
clock), `X-Nonce` (8-64 chars of `[A-Za-z0-9_-]`, never reused within 600 s) and `X-Signature`:
lowercase hex HMAC-SHA256 keyed with the secret over
`METHOD\\npath_and_query_as_sent\\ntimestamp\\nnonce\\nhex(sha256(body))`. Send one credential:
a request carrying both a bearer token and signed-request headers is refused with 401
`multiple_credentials` (the service does not guess which key is meant). A missing signing
header is named in the 401 `invalid_signature` message ("X-Nonce is missing").

**Trying it on this page.** "Authorize" one scheme at a time: `bearer` with an unsigned key's
whole token, or `signed` with a signed key's whole token `<key_id>.<secret>` (not the key id
alone): the page then signs every request in the browser and sends the key id, a timestamp, a
fresh nonce and the signature, never the secret. Optional parameters start empty. A curl the page
shows after a signed request repeats that request's nonce, already used: run as is, it gets 401
`replayed_request`; sign it again with a fresh nonce (the `sign` shell function of the
integration guide does).

**Envelope.** Success: `{"success": true, "data": {...}, "request_id"}`. Failure:
`{"success": false, "error": {"code", "message", "details", "doc_url"}, "request_id"}`. Branch on
`error.code`, never on `error.message`; `error.details` is always an object, the facts some codes
add (`{}` for the others); `error.doc_url` is an absolute link to the code's section on this
page (why it happens, how to fix it). Every response carries `X-Request-Id`.

**Rate limits.** Per key, `rate_limit_per_minute` requests in any 60 s. Authenticated responses
carry `RateLimit-Policy` and `RateLimit`; a 429 carries `Retry-After` (seconds).

**When a backing service is down.** With the database unreachable every operation answers 503
`service_unavailable` with `Retry-After`. With the replay store (Redis) unreachable, signed
requests answer 503 `service_unavailable` with `Retry-After` (a nonce that cannot be recorded
could be replayed, so the service refuses rather than accept it unchecked); bearer requests are
served, rate limits are then enforced by each server process on its own, and ARI batches are
accepted (`202`, `queued`) and applied once the queue is back.

**Freshness.** Reads follow acknowledged writes: once the service has told any client of a
write (a booking's 201 or its replay, a cancel's 200, a pushed reservation's answer, a batch
reported `applied` or `partially_applied` by `GET /ari/batches/{batchId}` or an
`ari_batch.finished` event, a change served by `GET /availability/changes`, an event served by
`GET /events`), every request that starts afterwards reflects it, through any of the service's
servers. Search and rates are answered from a copy of the prices, inventory and restrictions
that catches up first whenever such a write may be missing from it; search, rates and the
mapping reads may be answered from a read replica only once it holds every such write. Quotes
and bookings always decide on current data: a booking made from an offer that has since sold
out or changed price is refused (409 `sold_out`, `not_sellable` or `price_mismatch`), never
overbooked.

**Order of checks.** Routing (404, 405), body size (413), authentication (401), rate limit (429),
scope (403 `insufficient_scope`), mapped properties (403 `no_mapped_properties`), media type
(415), JSON syntax (400), field rules (422, `X-Sandbox-Scenario` included, then 403
`sandbox_only`), then the operation.

**Sandbox scenarios.** With a sandbox key, the `X-Sandbox-Scenario` header forces an outcome
(`sold_out`, `price_changed`, `quote_expired`, `penalty_exceeds_expectation`, `rate_limited`,
`service_unavailable`, `internal_error`, `partially_applied`, `delayed_apply`) so that a client's
error handling can be tested; each operation lists the values it honours. The answers are built
from the request (its hotel, room type, plan and dates) and store nothing unless said. An
unknown value, or one the operation does not honour, is 422 `validation_failed` naming the
header; a production key sending it gets 403 `sandbox_only`.
"""


# What the docs page's "Authorize" dialog shows above each scheme's input.
SCHEME_TEXTS = {
    "bearer": "An unsigned key's whole token, `<key_id>.<secret>`, sent as "
              "`Authorization: Bearer <key_id>.<secret>`. Authorize one scheme at a time: a "
              "request carrying both is refused (401 `multiple_credentials`).",
    "signed": "**Paste the whole token `<key_id>.<secret>`**, not the key id alone. This page "
              "then signs each request in the browser: it sends `X-Api-Key-Id` (the key id), "
              "`X-Timestamp`, `X-Nonce` and `X-Signature`, never the secret. A client of your "
              "own sends those four headers (see the introduction). Authorize one scheme at a "
              "time: a request carrying both is refused (401 `multiple_credentials`).",
}


class PreParsedJsonParser(FlaskParser):
    """Reads the body wire.parse_json_body already parsed (once, rejecting NaN and Infinity),
    instead of webargs parsing it a second time under looser rules. `load_json` is webargs'
    public location loader (the documented way to change where a location's data comes from)."""

    def load_json(self, req, schema):
        if "json_body" in g:
            return g.json_body
        return super().load_json(req, schema)


class ApiBlueprint(Blueprint):
    """The blueprint of every API area: its views are the API's operations, whose schemas load
    the body parsed by the wire rules."""
    ARGUMENTS_PARSER = PreParsedJsonParser()

    def route(self, rule, *, parameters=None, tags=None, **options):
        # Each operation gets an operationId, its view's name (`ping`, `create_booking`...):
        # clients generated from the description name their functions after it, rather than
        # after the path (`get_api_connectivity_v_1_ari_batches_batch_id`).
        register = super().route(rule, parameters=parameters, tags=tags, **options)

        def decorator(view):
            # Set before flask-smorest's doc wrapper, which copies it onto the registered view.
            view.operation_id = view.__name__
            register(self.doc(operationId=view.operation_id)(view))
            return view
        return decorator

    def arguments(self, schema, *args, **kwargs):
        # One instance per operation, made here once: given the class, webargs makes a new
        # instance for every request (and marshmallow then its nested schemas), a third of
        # what loading a 200-code search costs. A schema instance holds no request's state.
        if isinstance(schema, type):
            schema = schema()
        return super().arguments(schema, *args, **kwargs)


def operation_id(view: Callable | None) -> str | None:
    """The operationId of an API operation's view (ApiBlueprint.route); None for any other
    view (health, metrics, the description and its docs page)."""
    return getattr(view, "operation_id", None)


class ConnectivityApi(Api):
    ERROR_SCHEMA = ErrorEnvelopeSchema

    def handle_http_exception(self, error: HTTPException):
        code, message = HTTP_CODES.get(error.code or 500, HTTP_CODES[500])
        details = None
        data = getattr(error, "data", None) or {}
        if error.code == 422 and "messages" in data:
            # webargs keys messages by location ({"json": {...}}): partners see field paths only.
            messages = data["messages"]
            if isinstance(messages, dict) and len(messages) == 1 and next(iter(messages)) in (
                    "json", "query", "view_args", "headers"):
                messages = next(iter(messages.values()))
            fields = flatten_messages(messages) | forced_outcomes.field_errors()
            details = {"fields": fields}
            message = "the request is invalid: " + ", ".join(sorted(fields))
        elif error.code == 405:
            allowed = dict(error.get_headers()).get("Allow")
            if allowed:
                message = f"{message}; allowed: {allowed}"
        headers = {k: v for k, v in error.get_headers() if k.lower() != "content-type"}
        return error_response(error.code or 500, code, message, details, headers)


def init_api(app: Flask, spec_plugins: Iterable[BasePlugin] = ()) -> ConnectivityApi:
    """`spec_plugins`: apispec plugins of what the composition root plugs in (the sandbox's
    documents its header on each operation)."""
    app.config.update(
        API_TITLE="Partner Connectivity Service",
        API_VERSION="v1",
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX=API_PREFIX,
        OPENAPI_JSON_PATH="openapi.json",
        # The docs page is connectivity/web/docs_page (it signs "Try it out" requests).
    )
    max_body_bytes = app.config["MAX_CONTENT_LENGTH"]
    api = ConnectivityApi(app, spec_kwargs={
        "info": {"description": DESCRIPTION + "\n" + api_section(max_body_bytes)},
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}, {"signed": []}],
        "extra_plugins": list(spec_plugins),
    })
    api.spec.components.security_scheme("bearer", {
        "type": "http", "scheme": "bearer", "description": SCHEME_TEXTS["bearer"]})
    api.spec.components.security_scheme("signed", {
        "type": "apiKey", "in": "header", "name": "X-Api-Key-Id",
        "description": SCHEME_TEXTS["signed"]})
    api.ma_plugin.converter.add_attribute_function(ecma_pattern)
    register_code_lists(api.spec)
    register_error_responses(api.spec, max_body_bytes)
    _register_error_handlers(app)
    return api


def ecma_pattern(_converter, _field, ret: dict, **_) -> dict:
    """A Regexp validator's pattern as the description publishes it. The service's patterns end
    in Python's `\\Z` (a `$` there would also accept a trailing newline), which OpenAPI's
    ECMA-262 dialect does not know: a generated client would read it as a literal `Z`. In
    ECMA-262, `$` without the multiline flag is the end of the input, the same rule."""
    pattern = ret.get("pattern")
    if isinstance(pattern, str) and pattern.endswith("\\Z"):
        return {"pattern": pattern[:-2] + "$"}
    return {}


def _register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def _api_error(error: ApiError):
        return error_response(error.status, error.code, error.message, error.details,
                              error.headers)

    @app.errorhandler(psycopg.Error)
    @app.errorhandler(PoolTimeout)
    @app.errorhandler(RedisConnectionError)
    @app.errorhandler(RedisTimeoutError)
    def _unavailable(error: Exception):
        if isinstance(error, psycopg.Error) and not unreachable(error):
            return _unexpected(error)
        log.error("dependency_unavailable", error=type(error).__name__)
        return error_response(503, "service_unavailable",
                              "a backing service is unreachable; retry shortly",
                              headers={"Retry-After": "5"})

    @app.errorhandler(Exception)
    def _unexpected(error: Exception):
        # HTTPExceptions never reach here: ConnectivityApi.handle_http_exception is registered
        # for them, and Flask picks the most specific handler.
        log.exception("unhandled_error")
        return error_response(500, "internal_error",
                              "the service failed to handle this request; quote the request_id")
