"""Webhook secrets and signatures, as the Standard Webhooks specification has them (contract
12.3): a secret `whsec_<base64 of random bytes>`, and `webhook-signature: v1,<base64 of
HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">` keyed with the secret's decoded
bytes. The secret is shown once at creation and stored sealed (auth/credentials.py
SigningVault, as the keys' signing secrets are)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32  # the contract allows 24-64


def new_webhook_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def signed_headers(secret: str, webhook_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The headers of one attempt: the same event keeps its id, each attempt its own time."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    content = f"{webhook_id}.{timestamp}.".encode() + body
    digest = hmac.new(key, content, hashlib.sha256).digest()
    return {"webhook-id": webhook_id, "webhook-timestamp": str(timestamp),
            "webhook-signature": "v1," + base64.b64encode(digest).decode(),
            "content-type": "application/json"}
