"""One error path: every failure becomes an ApiError with a code from the contract's catalogue
(web/catalogue.py) and is answered in the one envelope."""

from __future__ import annotations

from typing import Any

from connectivity.web.catalogue import status_of


class ApiError(Exception):
    """A subclass names its `code`; its `status` is the code's in the catalogue."""

    code = "internal_error"
    status = status_of(code)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "code" in vars(cls):
            cls.status = status_of(cls.code)

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

    def __reduce__(self):
        # Pickled whole, whatever a subclass's __init__ takes (an exception is rebuilt from its
        # args alone by default): the model host sends what it raises to the worker that asked
        # (availability/read_model/host.py).
        return _rebuilt, (type(self), self.args, dict(self.__dict__))


def _rebuilt(cls: type[ApiError], args: tuple, state: dict) -> ApiError:
    error = cls.__new__(cls)
    error.args = args
    error.__dict__.update(state)
    return error


class MalformedJson(ApiError):
    code = "malformed_json"


class Unauthorized(ApiError):
    """A 401; `code` is one of the catalogue's 401 codes (contract section 2; a test holds every
    raise to that)."""

    status = 401

    def __init__(self, code: str, message: str, **kwargs):
        super().__init__(message, code=code, **kwargs)
        self.headers.setdefault("WWW-Authenticate", 'Bearer realm="partner-connectivity"')


class InsufficientScope(ApiError):
    code = "insufficient_scope"


class NoMappedProperties(ApiError):
    code = "no_mapped_properties"


class NotFound(ApiError):
    code = "not_found"


class Conflict(ApiError):
    """A 409, a business conflict; `code` is one of the catalogue's 409 codes (a test holds
    every raise to that)."""

    status = 409

    def __init__(self, code: str, message: str, **kwargs):
        super().__init__(message, code=code, **kwargs)


class PayloadTooLarge(ApiError):
    code = "payload_too_large"


class UnsupportedMediaType(ApiError):
    code = "unsupported_media_type"


class ValidationFailed(ApiError):
    code = "validation_failed"

    def __init__(self, fields: dict[str, list[str]], message: str | None = None):
        paths = ", ".join(sorted(fields))
        super().__init__(message or f"the request is invalid: {paths}",
                         details={"fields": fields})


class CurrencyNotSupported(ApiError):
    """422: no FX rate converts the prices into the requested currency (contract section 8)."""
    code = "currency_not_supported"


class InvalidQuoteToken(ApiError):
    """422: a quote token this service did not sign, or one altered since (contract section 6)."""
    code = "invalid_quote_token"


class RateLimited(ApiError):
    code = "rate_limited"


class ServiceUnavailable(ApiError):
    code = "service_unavailable"

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
