"""What a newcomer gets for a half-right credential: each missing signing header named, a whole
token in X-Api-Key-Id told apart from an unknown key, and a request carrying a bearer token and
signed headers at once refused with 401 `multiple_credentials` (never served with one of the
two keys' scopes)."""

from __future__ import annotations

import time

import pytest

from tests.support.envelope import API, assert_envelope_success, assert_unauthorized
from tests.support.signing import bearer, signed_headers

PING = f"{API}/ping"
SEARCH = f"{API}/availability/search"


@pytest.mark.parametrize("left_out, said", [
    (("X-Timestamp", "X-Nonce", "X-Signature"),
     "X-Timestamp, X-Nonce and X-Signature are missing"),
    (("X-Timestamp",), "X-Timestamp is missing"),
    (("X-Nonce",), "X-Nonce is missing"),
    (("X-Signature",), "X-Signature is missing"),
    (("X-Nonce", "X-Signature"), "X-Nonce and X-Signature are missing"),
])
def test_each_missing_signing_header_is_named(client, catalog, issue, left_out, said):
    key = issue("push")
    headers = {name: value for name, value in signed_headers(key.token, "GET", PING).items()
               if name not in left_out}
    error = assert_unauthorized(client.get(PING, headers=headers), "invalid_signature")
    assert error["message"].startswith(f"{said}: a signed request sends X-Api-Key-Id")
    assert "whole token <key_id>.<secret>" in error["message"]


def test_a_stale_request_is_told_so_before_a_missing_nonce(client, catalog, issue):
    key = issue("push")
    headers = signed_headers(key.token, "GET", PING, timestamp=int(time.time()) - 1000)
    del headers["X-Nonce"]
    assert_unauthorized(client.get(PING, headers=headers), "stale_request")


def test_the_whole_token_in_x_api_key_id_is_told_apart(client, catalog, issue):
    key = issue("push")
    error = assert_unauthorized(client.get(PING, headers={"X-Api-Key-Id": key.token}),
                                "invalid_credentials")
    assert error["message"].startswith("X-Api-Key-Id must carry the key id alone")
    assert key.token.partition(".")[2] not in error["message"]


@pytest.mark.parametrize("signed_with", ["push", "pull"])
def test_a_bearer_token_and_signed_headers_together_are_refused(client, catalog, issue,
                                                                signed_with):
    pull, push = issue("pull"), issue("push")
    signer = push if signed_with == "push" else issue("pull", signed=True)
    body = (b'{"hotel_codes":["ACME-LIS"],"check_in":"2030-01-01","check_out":"2030-01-02",'
            b'"rooms":1,"occupancy":[{"adults":2}]}')
    both = {**bearer(pull.token), **signed_headers(signer.token, "POST", SEARCH, body),
            "Content-Type": "application/json"}
    error = assert_unauthorized(client.post(SEARCH, data=body, headers=both),
                                "multiple_credentials")
    assert "send one credential" in error["message"]
    # Each alone is answered as its key deserves.
    assert_envelope_success(client.post(SEARCH, data=body, headers={
        **bearer(pull.token), "Content-Type": "application/json"}))
    alone = signed_headers(signer.token, "POST", SEARCH, body)
    answer = client.post(SEARCH, data=body, headers={**alone, "Content-Type": "application/json"})
    assert answer.status_code == (403 if signed_with == "push" else 200), answer.json


def test_multiple_credentials_costs_no_quota_and_no_nonce(client, catalog, issue):
    pull, push = issue("pull", rate_limit=2), issue("push")
    headers = signed_headers(push.token, "GET", PING)
    for _ in range(3):
        assert_unauthorized(client.get(PING, headers={**bearer(pull.token), **headers}),
                            "multiple_credentials")
    # The nonce was never recorded, and the bearer key's two requests are still there.
    assert_envelope_success(client.get(PING, headers=headers))
    for _ in range(2):
        assert_envelope_success(client.get(PING, headers=bearer(pull.token)))
