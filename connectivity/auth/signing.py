"""The request signature of contract section 2: HMAC-SHA256 over
METHOD \\n path_and_query_as_sent \\n timestamp \\n nonce \\n hex(sha256(body))."""

from __future__ import annotations

import hashlib
import hmac
import re

NONCE_RE = re.compile(r"^[A-Za-z0-9_-]{8,64}\Z")
TIMESTAMP_RE = re.compile(r"^-?[0-9]{1,12}\Z")


def string_to_sign(method: str, target: str, timestamp: str, nonce: str, body: bytes) -> str:
    return "\n".join([method.upper(), target, timestamp, nonce, hashlib.sha256(body).hexdigest()])


def signature(secret: str, method: str, target: str, timestamp: str, nonce: str,
              body: bytes) -> str:
    message = string_to_sign(method, target, timestamp, nonce, body).encode()
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def signature_matches(presented: str, expected: str) -> bool:
    return hmac.compare_digest(presented.encode(), expected.encode())


def request_target(environ: dict) -> str:
    """The path and query exactly as the client sent them. Servers put the raw request line's
    target in RAW_URI (gunicorn) or REQUEST_URI (werkzeug); some leave the query out of it."""
    raw = environ.get("RAW_URI") or environ.get("REQUEST_URI")
    if not raw:
        from urllib.parse import quote
        raw = quote(environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", ""))
    query = environ.get("QUERY_STRING", "")
    if query and "?" not in raw:
        raw = f"{raw}?{query}"
    return raw
