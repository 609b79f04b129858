"""Request signing of the contract (section 2): HMAC-SHA256, keyed with the secret's UTF-8 bytes,
over METHOD, the path and query exactly as sent, the timestamp, the nonce and the body's SHA-256.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

from .options import checks_options


def string_to_sign(method: str, path_and_query: str, timestamp: str, nonce: str,
                   body: bytes) -> str:
    return "\n".join((method.upper(), path_and_query, timestamp, nonce,
                      hashlib.sha256(body).hexdigest()))


def signature(secret: str, message: str) -> str:
    return hmac.new(secret.encode("utf-8"), message.encode("utf-8"), hashlib.sha256).hexdigest()


@checks_options
def signed_headers(key_id: str, secret: str, method: str, path_and_query: str, body: bytes,
                   *, timestamp: int | None = None, nonce: str | None = None) -> dict[str, str]:
    """The four headers of a signed request. A fresh nonce each call: the service refuses a
    nonce it saw in the last 600 s, so a retry must be signed again."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    nonce = nonce or secrets.token_hex(16)
    return {"X-Api-Key-Id": key_id, "X-Timestamp": ts, "X-Nonce": nonce,
            "X-Signature": signature(secret, string_to_sign(method, path_and_query, ts, nonce,
                                                            body))}
