"""Verifying the service's webhooks (contract 12.3, the Standard Webhooks signature) with the
standard library alone: HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>", keyed with
the base64-decoded secret after "whsec_", compared in constant time, and a timestamp within a
tolerance of this machine's clock (an old delivery replayed by someone else is refused)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

from .options import checks_options

SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE_SECONDS = 300


class WebhookVerificationError(ValueError):
    """The delivery is not the service's, or not a recent one: answer 400 and drop it."""


@checks_options
def verify_webhook(headers: Mapping[str, str], body: bytes | str, secret: str, *,
                   tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
                   now: float | None = None) -> dict[str, Any]:
    """The event, once the delivery's signature and timestamp check out; else raises
    WebhookVerificationError. `headers`: the request's (any case); `body`: its raw bytes, as
    received (parsing and re-serializing first would change them); `secret`: the `whsec_...`
    shown when the endpoint was created. Deduplicate by `headers["webhook-id"]` (the event id):
    a delivery may come more than once."""
    lowered = {k.lower(): v for k, v in headers.items()}
    webhook_id = lowered.get("webhook-id")
    timestamp = lowered.get("webhook-timestamp")
    signatures = lowered.get("webhook-signature")
    if not (webhook_id and timestamp and signatures):
        raise WebhookVerificationError("missing webhook-id, webhook-timestamp or "
                                       "webhook-signature")
    try:
        sent_at = int(timestamp)
    except ValueError:
        raise WebhookVerificationError("webhook-timestamp is not unix seconds") from None
    clock = time.time() if now is None else now
    if abs(clock - sent_at) > tolerance_seconds:
        raise WebhookVerificationError(f"webhook-timestamp is more than {tolerance_seconds} s "
                                       "from this machine's clock")
    raw = body.encode("utf-8") if isinstance(body, str) else body
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError("the secret is the whsec_... the endpoint's creation answered")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX):], validate=True)
    except binascii.Error:
        raise ValueError("the secret after whsec_ is not base64") from None
    expected = hmac.new(key, f"{webhook_id}.{sent_at}.".encode() + raw, hashlib.sha256).digest()
    # Several signatures, space-separated, may be sent (while a secret is being rotated).
    for candidate in signatures.split():
        version, _, encoded = candidate.partition(",")
        if version != "v1":
            continue
        try:
            given = base64.b64decode(encoded, validate=True)
        except binascii.Error:
            continue
        if hmac.compare_digest(expected, given):
            return json.loads(raw)
    raise WebhookVerificationError("no signature matches: wrong secret, or the body was changed")
