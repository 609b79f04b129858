"""Assertions shared by the API tests: the envelope of contract section 1."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

API = "/api/connectivity/v1"
REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9._-]{1,128}$")


def assert_envelope_failure(response, status: int, code: str) -> dict:
    """The failure envelope with this status and code; returns `error`."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert body["success"] is False, body
    assert set(body) == {"success", "error", "request_id"}, body
    error = body["error"]
    assert error["code"] == code, body
    assert isinstance(error["message"], str) and error["message"], body
    assert set(error) == {"code", "message", "details", "doc_url"}, body
    # Absolute: the request's origin (the test client's is http://localhost) or PUBLIC_BASE_URL.
    link = urlsplit(error["doc_url"])
    assert link.scheme in ("http", "https") and link.netloc, body
    assert (link.path.endswith(f"{API}/docs"), link.fragment) == (True, f"error-{code}"), body
    assert isinstance(error["details"], dict), body
    request_id = response.headers.get("X-Request-Id")
    assert request_id and REQUEST_ID_RE.match(request_id), response.headers
    assert body["request_id"] == request_id
    return error


def assert_envelope_success(response, status: int = 200) -> dict:
    """The success envelope with this status; returns `data`."""
    assert response.status_code == status, (response.status_code, response.get_data(as_text=True))
    body = response.get_json()
    assert body["success"] is True, body
    assert set(body) == {"success", "data", "request_id"}, body
    assert isinstance(body["data"], dict)
    request_id = response.headers.get("X-Request-Id")
    assert request_id and REQUEST_ID_RE.match(request_id), response.headers
    assert body["request_id"] == request_id
    return body["data"]


def assert_unauthorized(response, code: str) -> dict:
    """A 401 of contract section 2: the code, the envelope and a WWW-Authenticate challenge."""
    error = assert_envelope_failure(response, 401, code)
    assert response.headers.get("WWW-Authenticate"), response.headers
    return error


# The codes a request can get before its operation runs (wire checks and guards).
GUARD_CODES = {
    "missing_credentials", "invalid_credentials", "key_revoked", "key_expired",
    "signature_required", "stale_request", "invalid_signature", "replayed_request",
    "insufficient_scope", "no_mapped_properties", "rate_limited", "payload_too_large",
    "unsupported_media_type", "malformed_json", "method_not_allowed",
}


def assert_passed_the_guards(response) -> None:
    """Authentication, rate limit, scope, mapped properties, media type and JSON syntax all
    passed, so the operation itself answered: its own outcome, never a guard's code."""
    assert response.status_code not in (400, 401, 403, 405, 413, 415, 429, 500, 503), (
        response.status_code, response.get_data(as_text=True))
    body = response.get_json()
    assert isinstance(body, dict) and isinstance(body.get("success"), bool), body
    if body["success"]:
        assert_envelope_success(response, response.status_code)
    else:
        assert body["error"]["code"] not in GUARD_CODES, body
        assert body["request_id"] == response.headers.get("X-Request-Id")
