"""An independent implementation of the request signature of contract section 2 (and the
clarifications of section 10). Deliberately does NOT import connectivity.auth.signing: the tests
check the service against the contract, not against itself.

string_to_sign = METHOD "\n" path_and_query_as_sent "\n" timestamp "\n" nonce "\n" hex(sha256(body))
X-Signature    = lowercase hex HMAC-SHA256(key = secret's UTF-8 bytes, message = string_to_sign)
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

API = "/api/connectivity/v1"


def split_token(token: str) -> tuple[str, str]:
    """`<key_id>.<secret>` -> (key_id, secret). The key id never contains a dot."""
    key_id, dot, secret = token.partition(".")
    assert dot and key_id and secret, f"not a token: {token!r}"
    return key_id, secret


def string_to_sign(method: str, path_and_query: str, timestamp: str, nonce: str,
                   body: bytes) -> str:
    return (f"{method}\n{path_and_query}\n{timestamp}\n{nonce}\n"
            f"{hashlib.sha256(body).hexdigest()}")


def sign(secret: str, method: str, path_and_query: str, timestamp: str, nonce: str,
         body: bytes) -> str:
    message = string_to_sign(method, path_and_query, timestamp, nonce, body).encode("utf-8")
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def new_nonce() -> str:
    return secrets.token_hex(16)  # 32 chars of [0-9a-f]


def signed_headers(token: str, method: str, path_and_query: str, body: bytes = b"", *,
                   timestamp: int | str | None = None, nonce: str | None = None,
                   secret: str | None = None, key_id: str | None = None) -> dict[str, str]:
    """The four signed-request headers for `token` (a `<key_id>.<secret>`).

    `path_and_query` is the request target exactly as it will be sent (with the API prefix and,
    when there is one, `?` and the query). `timestamp`, `nonce`, `secret` and `key_id` override
    what would otherwise be the current time, a fresh nonce and the token's own parts."""
    token_key_id, token_secret = split_token(token)
    ts = str(int(time.time()) if timestamp is None else timestamp)
    nonce = new_nonce() if nonce is None else nonce
    signature = sign(token_secret if secret is None else secret, method, path_and_query, ts,
                     nonce, body)
    return {"X-Api-Key-Id": token_key_id if key_id is None else key_id, "X-Timestamp": ts,
            "X-Nonce": nonce, "X-Signature": signature}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
