"""One error path: every failure becomes an ApiError with a code from the contract's catalogue
and is answered in the one envelope."""

from __future__ import annotations

from typing import Any


class ApiError(Exception):
    status = 500
    code = "internal_error"

    def __init__(self, message: str, *, details: dict[str, Any] | None = None,
                 headers: dict[str, str] | None = None, status: int | None = None,
                 code: str | None = None):
        super().__init__(message)
        self.message = message
        self.details = details
        self.headers = headers or {}
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code


class MalformedJson(ApiError):
    status, code = 400, "malformed_json"


class Unauthorized(ApiError):
    """A 401; `code` is one of the contract's section 2 codes."""

    status = 401

    def __init__(self, code: str, message: str, **kwargs):
        super().__init__(message, code=code, **kwargs)
        self.headers.setdefault("WWW-Authenticate", 'Bearer realm="partner-connectivity"')


class InsufficientScope(ApiError):
    status, code = 403, "insufficient_scope"


class NoMappedProperties(ApiError):
    status, code = 403, "no_mapped_properties"


class NotFound(ApiError):
    status, code = 404, "not_found"


class Conflict(ApiError):
    """A 409; `code` is one of sold_out, not_sellable, price_mismatch, quote_expired,
    quote_mismatch, penalty_exceeds_expectation."""

    status = 409

    def __init__(self, code: str, message: str, **kwargs):
        super().__init__(message, code=code, **kwargs)


class PayloadTooLarge(ApiError):
    status, code = 413, "payload_too_large"


class UnsupportedMediaType(ApiError):
    status, code = 415, "unsupported_media_type"


class ValidationFailed(ApiError):
    status, code = 422, "validation_failed"

    def __init__(self, fields: dict[str, list[str]], message: str | None = None):
        paths = ", ".join(sorted(fields))
        super().__init__(message or f"the request is invalid: {paths}",
                         details={"fields": fields})


class CurrencyNotSupported(ApiError):
    """422: no FX rate converts the prices into the requested currency (contract section 8)."""
    status, code = 422, "currency_not_supported"


class InvalidQuoteToken(ApiError):
    """422: a quote token this service did not sign, or one altered since (contract section 6)."""
    status, code = 422, "invalid_quote_token"


class RateLimited(ApiError):
    status, code = 429, "rate_limited"


class NotImplementedYet(ApiError):
    """501 (contract catalogue). Every specified operation is built, so nothing raises it
    today; kept so the catalogue stays whole (api.py maps Werkzeug's own 501 to the same code)."""
    status, code = 501, "not_implemented"


class ServiceUnavailable(ApiError):
    status, code = 503, "service_unavailable"

    def __init__(self, message: str, retry_after: int = 5, **kwargs):
        super().__init__(message, **kwargs)
        self.headers["Retry-After"] = str(retry_after)


def flatten_messages(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """marshmallow's nested error dict -> {"occupancy.0.adults": ["..."]}, every failing path."""
    out: dict[str, list[str]] = {}
    if isinstance(messages, dict):
        for key, value in messages.items():
            name = "" if key == "_schema" else str(key)
            path = f"{prefix}.{name}" if prefix and name else (prefix or name)
            for p, msgs in flatten_messages(value, path).items():
                out.setdefault(p, []).extend(msgs)
    elif isinstance(messages, (list, tuple)):
        if all(isinstance(m, str) for m in messages):
            out[prefix or "body"] = list(messages)
        else:
            for m in messages:
                for p, msgs in flatten_messages(m, prefix).items():
                    out.setdefault(p, []).extend(msgs)
    else:
        out[prefix or "body"] = [str(messages)]
    return out
