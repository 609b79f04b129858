"""The response envelope of contract section 1, for successes and failures alike."""

from __future__ import annotations

import json
import uuid
from functools import cache

from flask import Response, g, jsonify, request
from marshmallow import fields, pre_dump

from connectivity.web.schema import Schema
from connectivity.web.catalogue import BY_CODE, doc_url
from connectivity.web.services import services


def request_id() -> str:
    return getattr(g, "request_id", "")


def public_origin() -> str:
    """Where the partner reached this service, without a trailing '/': PUBLIC_BASE_URL when
    it is set (behind a proxy that changes the scheme or host), else the request's origin."""
    return services().settings.public_base_url or request.root_url.rstrip("/")


def error_body(code: str, message: str, details: dict | None, request_id: str,
               origin: str = "") -> dict:
    """`origin`: what makes `doc_url` absolute (public_origin(); "" where no request or
    setting tells it, as in gunicorn's own refusals)."""
    # `details` is always there, `{}` when the code has no facts to add (contract section 1).
    return {"success": False,
            "error": {"code": code, "message": message, "details": details or {},
                      "doc_url": origin + doc_url(code)},
            "request_id": request_id}


def error_response(status: int, code: str, message: str, details: dict | None = None,
                   headers: dict[str, str] | None = None) -> Response:
    g.error_code = code  # for the metrics of the request (connectivity/metrics/http.py)
    response = jsonify(error_body(code, message, details, request_id(), public_origin()))
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


# What gunicorn refuses before the app sees the request (web/request_limits.py).
_REFUSED_BEFORE_THE_APP = {414: "uri_too_long", 431: "headers_too_large"}


def refusal_before_the_app(status: int, origin: str = "") -> tuple[bytes, str] | None:
    """The JSON body of gunicorn's refusal with this status, and its new request id; None for a
    status the service does not answer itself (adapters/gunicorn_errors.py). `origin`:
    PUBLIC_BASE_URL, the only origin known without a request (else `doc_url` is a path)."""
    code = _REFUSED_BEFORE_THE_APP.get(status)
    if code is None:
        return None
    entry, new_id = BY_CODE[code], uuid.uuid4().hex
    body = error_body(code, f"{entry.meaning}; {entry.action}", None, new_id, origin)
    return json.dumps(body).encode(), new_id


def success_body(data: dict) -> dict:
    return {"success": True, "data": data, "request_id": request_id()}


class ErrorSchema(Schema):
    code = fields.String(required=True, metadata={"description": "machine-readable; branch on it"})
    message = fields.String(required=True, metadata={"description": "human text; never branch on it"})
    details = fields.Dict(required=True, metadata={
        "description": "machine-readable facts for some codes (each code's description names "
                       "them); `{}` when the code has none"})
    doc_url = fields.String(required=True, metadata={
        "description": "the docs page's section on this code: why it happens and how to fix it "
                       "(an absolute URL on this service)",
        "example": "https://api.example.com/api/connectivity/v1/docs#error-invalid_signature"})


class ErrorEnvelopeSchema(Schema):
    success = fields.Boolean(required=True, metadata={"enum": [False]})
    error = fields.Nested(ErrorSchema, required=True)
    request_id = fields.String(required=True)


@cache
def enveloped(data_schema: type[Schema]) -> type[Schema]:
    """A schema {success, data: <data_schema>, request_id} for `@blp.response`; the view returns
    the bare payload and this wraps it."""

    class _Envelope(Schema):
        success = fields.Boolean(required=True, metadata={"enum": [True]})
        data = fields.Nested(data_schema, required=True)
        request_id = fields.String(required=True)

        @pre_dump
        def wrap(self, payload, **_):
            return success_body(payload)

    _Envelope.__name__ = data_schema.__name__.removesuffix("Schema") + "EnvelopeSchema"
    return _Envelope
