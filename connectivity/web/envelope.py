"""The response envelope of contract section 1, for successes and failures alike."""

from __future__ import annotations

from functools import cache
from typing import Any

from flask import Response, g, jsonify
from marshmallow import fields, pre_dump

from connectivity.web.schema import Schema
from connectivity.web.catalogue import doc_url


def request_id() -> str:
    return getattr(g, "request_id", "")


def error_response(status: int, code: str, message: str, details: dict | None = None,
                   headers: dict[str, str] | None = None) -> Response:
    # `details` is always there, `{}` when the code has no facts to add (contract section 1).
    error: dict[str, Any] = {"code": code, "message": message, "details": details or {},
                             "doc_url": doc_url(code)}
    g.error_code = code  # for the metrics of the request (connectivity/metrics/http.py)
    response = jsonify({"success": False, "error": error, "request_id": request_id()})
    response.status_code = status
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


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
                       "(a path on this service)",
        "example": "/api/connectivity/v1/docs#error-invalid_signature"})


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
