"""clients/python's verify_webhook against deliveries the service signs (webhooks/signature.py)
and the Standard Webhooks reference package: it accepts what they sign and refuses a changed
body, another secret, an old or future timestamp and missing headers."""

from __future__ import annotations

import datetime as dt
import json
import time

import pytest

# The conftest puts the client's source on the path (as test_python_client.py relies on).
from pcs_client import WebhookVerificationError, verify_webhook
from standardwebhooks import Webhook

from connectivity.webhooks.signature import new_webhook_secret, signed_headers

EVENT = {"event_id": "evt_" + "a" * 32, "type": "booking.confirmed",
         "created_at": "2027-01-01T10:00:00+00:00", "data": {"booking": {"reference": "B1"}}}
BODY = json.dumps(EVENT, separators=(",", ":")).encode()


@pytest.fixture
def secret():
    return new_webhook_secret()


def _sent(secret: str, at: int | None = None, body: bytes = BODY) -> dict[str, str]:
    return signed_headers(secret, EVENT["event_id"], int(time.time()) if at is None else at, body)


def test_a_delivery_the_service_signed_verifies(secret):
    headers = _sent(secret)
    assert verify_webhook(headers, BODY, secret) == EVENT
    shouted = {k.upper(): v for k, v in headers.items()}
    assert verify_webhook(shouted, BODY.decode(), secret) == EVENT
    # The reference implementation agrees on both sides.
    assert Webhook(secret).verify(BODY, headers) == EVENT
    msg_time = dt.datetime.fromtimestamp(int(headers["webhook-timestamp"]), dt.timezone.utc)
    theirs = {**headers, "webhook-signature": Webhook(secret).sign(EVENT["event_id"], msg_time,
                                                                   BODY.decode())}
    assert verify_webhook(theirs, BODY, secret) == EVENT


def test_one_matching_signature_among_several_is_enough(secret):
    headers = _sent(secret)
    other = _sent(new_webhook_secret())["webhook-signature"]
    headers["webhook-signature"] = f"v2,abc {other} {headers['webhook-signature']}"
    assert verify_webhook(headers, BODY, secret) == EVENT


@pytest.mark.parametrize("change", ["body", "secret", "old", "future", "id", "no-signature",
                                    "no-timestamp", "bad-timestamp", "garbage-signature"])
def test_forged_or_stale_deliveries_are_refused(secret, change):
    # The clock the check reads, fixed: a stale delivery 301 s off, not "301 s off unless the
    # machine paused between signing and checking".
    now = int(time.time())
    headers, body, key = _sent(secret, at=now), BODY, secret
    if change == "body":
        body = BODY.replace(b"B1", b"B2")
    elif change == "secret":
        key = new_webhook_secret()
    elif change == "old":
        headers = _sent(secret, at=now - 301)
    elif change == "future":
        headers = _sent(secret, at=now + 301)
    elif change == "id":
        headers["webhook-id"] = "evt_" + "b" * 32
    elif change == "no-signature":
        del headers["webhook-signature"]
    elif change == "no-timestamp":
        del headers["webhook-timestamp"]
    elif change == "bad-timestamp":
        headers["webhook-timestamp"] = "soon"
    elif change == "garbage-signature":
        headers["webhook-signature"] = "v1,%%%"
    with pytest.raises(WebhookVerificationError):
        verify_webhook(headers, body, key, now=now)


def test_the_tolerance_is_the_receivers_choice(secret):
    headers = _sent(secret, at=int(time.time()) - 600)
    assert verify_webhook(headers, BODY, secret, tolerance_seconds=900) == EVENT
