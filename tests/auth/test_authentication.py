"""Contract section 2 (keys and authentication) and the handshake endpoints /ping and /whoami."""

from __future__ import annotations

import json
import math
import time
from datetime import datetime, timedelta, timezone

import pytest
from flask import g

from connectivity.web.envelope import enveloped
from connectivity.handshake.schemas import PingSchema
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.operator.keys import revoke_key

from tests.support.envelope import (API, assert_envelope_success,
                      assert_passed_the_guards, assert_unauthorized)
from tests.support.signing import bearer, sign, signed_headers, split_token, string_to_sign

PING = f"{API}/ping"
WHOAMI = f"{API}/whoami"
SEARCH = f"{API}/availability/search"
PULL_SCOPES = ["ari.read", "content.read", "booking.quote", "booking.write", "booking.read",
               "booking.cancel"]
PUSH_SCOPES = ["ari.write", "restriction.write", "reservation.write", "reservation.cancel"]


def _wrong_secret(token: str) -> str:
    key_id, secret = split_token(token)
    flipped = ("A" if secret[0] != "A" else "B") + secret[1:]
    return f"{key_id}.{flipped}"


def _send(client, method: str, target: str, body: bytes = b"", headers=None):
    kwargs = {"headers": headers or {}}
    if body:
        kwargs.update(data=body, content_type="application/json")
    return client.open(target, method=method, **kwargs)


# --- the test's own signature implementation ---------------------------------------------------

def test_signing_helper_matches_a_known_answer():
    # Vector computed outside Python with: printf ... | openssl dgst -sha256 -hmac 'sëcret-key'
    body = b'{"a":1}'
    target = f"{API}/availability/search?x=1&y=2"
    assert string_to_sign("POST", target, "1700000000", "nonce-123_ABC", body) == (
        "POST\n/api/connectivity/v1/availability/search?x=1&y=2\n1700000000\nnonce-123_ABC\n"
        "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862")
    assert sign("sëcret-key", "POST", target, "1700000000", "nonce-123_ABC", body) == (
        "f0160a3f50882cf5bf226f6f394fc65202894554dafde3e6a2e3555e3e3b7bda")
    assert string_to_sign("GET", PING, "1", "n" * 8, b"").endswith(
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")


# --- missing_credentials / invalid_credentials ---------------------------------------------------

def test_no_credentials_is_missing_credentials(client, catalog):
    assert_unauthorized(client.get(PING), "missing_credentials")
    assert_unauthorized(client.get(WHOAMI, headers={"Authorization": ""}), "missing_credentials")


def test_bearer_token_of_a_pull_key_is_accepted(client, catalog, issue):
    key = issue("pull")
    data = assert_envelope_success(client.get(PING, headers=bearer(key.token)))
    assert data["pong"] is True
    assert data["environment"] == "sandbox"
    server_time = datetime.fromisoformat(data["server_time"])
    assert server_time.utcoffset() is not None
    assert abs((datetime.now(timezone.utc) - server_time).total_seconds()) < 5


def test_unknown_key_id_is_invalid_credentials(client, catalog, issue):
    key = issue("pull")
    _, secret = split_token(key.token)
    assert_unauthorized(client.get(PING, headers=bearer(f"sbx_{'Z' * 24}.{secret}")),
                        "invalid_credentials")


def test_wrong_secret_is_invalid_credentials(client, catalog, issue):
    key = issue("pull")
    assert_unauthorized(client.get(PING, headers=bearer(_wrong_secret(key.token))),
                        "invalid_credentials")
    # a prefix of the right secret is not the secret either
    assert_unauthorized(client.get(PING, headers=bearer(key.token[:-1])), "invalid_credentials")


@pytest.mark.parametrize("authorization", [
    "Basic x",
    "Basic dXNlcjpwYXNz",
    "Bearer no-dot-in-this-token",
    "Bearer",
    "Bearer .secretonly",
    "Token sbx_abcdefghijklmnopqrstuvwx.secret",
])
def test_malformed_authorization_is_invalid_credentials(client, catalog, authorization):
    assert_unauthorized(client.get(PING, headers={"Authorization": authorization}),
                        "invalid_credentials")


def test_key_id_of_a_signed_request_unknown_is_invalid_credentials(client, catalog, issue):
    key = issue("pull", signed=True)
    _, secret = split_token(key.token)
    headers = signed_headers(f"sbx_{'Q' * 24}.{secret}", "GET", PING)
    assert_unauthorized(client.get(PING, headers=headers), "invalid_credentials")


# --- key_revoked / key_expired --------------------------------------------------------------------

def test_revoked_key_is_refused_from_the_next_request(client, catalog, issue, db):
    key = issue("pull")
    assert_envelope_success(client.get(PING, headers=bearer(key.token)))
    db.run(revoke_key, key.key_id)
    assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_revoked")
    assert_unauthorized(client.get(WHOAMI, headers=bearer(key.token)), "key_revoked")


def test_revoked_key_with_wrong_secret_is_invalid_credentials(client, catalog, issue, db):
    key = issue("pull")
    db.run(revoke_key, key.key_id)
    assert_unauthorized(client.get(PING, headers=bearer(_wrong_secret(key.token))),
                        "invalid_credentials")


def test_revoked_signed_key_is_key_revoked(client, catalog, issue, db):
    key = issue("push")
    db.run(revoke_key, key.key_id)
    assert_unauthorized(client.get(PING, headers=signed_headers(key.token, "GET", PING)),
                        "key_revoked")


def test_key_expired_in_the_past(client, catalog, issue):
    key = issue("pull", expires_at=datetime.now(timezone.utc) - timedelta(minutes=5))
    assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_expired")
    assert_unauthorized(client.get(WHOAMI, headers=bearer(key.token)), "key_expired")


def test_key_expires_while_in_use(client, catalog, issue):
    expires_at = datetime.now(timezone.utc) + timedelta(seconds=1)
    key = issue("pull", expires_at=expires_at)
    assert_envelope_success(client.get(PING, headers=bearer(key.token)))
    time.sleep(max(0.0, (expires_at - datetime.now(timezone.utc)).total_seconds()) + 0.2)
    assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_expired")


def test_revoked_comes_before_expired(client, catalog, issue, db):
    key = issue("pull", expires_at=datetime.now(timezone.utc) - timedelta(days=1))
    db.run(revoke_key, key.key_id)
    assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_revoked")


def test_expired_comes_before_signature_required(client, catalog, issue):
    key = issue("push", expires_at=datetime.now(timezone.utc) - timedelta(days=1))
    assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_expired")


def test_expired_wrong_secret_is_invalid_credentials(client, catalog, issue):
    key = issue("pull", expires_at=datetime.now(timezone.utc) - timedelta(days=1))
    assert_unauthorized(client.get(PING, headers=bearer(_wrong_secret(key.token))),
                        "invalid_credentials")


# --- signature_required ---------------------------------------------------------------------------

@pytest.mark.parametrize("preset,signed", [("pull", True), ("push", None), ("none", True)])
def test_signed_key_sending_bearer_is_signature_required(client, catalog, issue, preset, signed):
    key = issue(preset, signed=signed)
    assert key.requires_signature is True
    assert_unauthorized(client.get(PING, headers=bearer(key.token)), "signature_required")


@pytest.mark.parametrize("preset,signed", [("pull", True), ("push", None)])
def test_signed_key_sending_bearer_with_wrong_secret_is_invalid_credentials(
        client, catalog, issue, preset, signed):
    key = issue(preset, signed=signed)
    assert_unauthorized(client.get(PING, headers=bearer(_wrong_secret(key.token))),
                        "invalid_credentials")


def test_push_key_issued_unsigned_may_use_bearer(client, catalog, issue):
    key = issue("push", signed=False)
    assert key.requires_signature is False
    assert_envelope_success(client.get(PING, headers=bearer(key.token)))


# --- signed requests -----------------------------------------------------------------------------

def test_signed_get_ping_succeeds(client, catalog, issue):
    key = issue("push")
    data = assert_envelope_success(client.get(PING, headers=signed_headers(key.token, "GET", PING)))
    assert data["pong"] is True


def test_signed_get_with_query_string_succeeds(client, catalog, issue):
    key = issue("push")
    target = f"{PING}?probe=1&x=a%2Fb"
    assert_envelope_success(client.get(target, headers=signed_headers(key.token, "GET", target)))


BODY = json.dumps({"hotel_codes": ["ACME-LIS"], "check_in": "2031-05-01",
                   "check_out": "2031-05-03", "rooms": 1,
                   "occupancy": [{"adults": 2}]}).encode()
TARGET = f"{SEARCH}?trace=abc&page=2"


def test_signed_post_with_json_body_and_query_passes_authentication(client, catalog, issue):
    key = issue("pull", signed=True)
    response = _send(client, "POST", TARGET, BODY, signed_headers(key.token, "POST", TARGET, BODY))
    # Every guard passed; the endpoint itself is still a stub.
    assert_passed_the_guards(response)


def _flip(token):
    """name -> (signed as: method, target, body, ts-delta, secret) vs sent as the baseline."""
    _, secret = split_token(token)
    return {
        "method": dict(method="PUT"),
        "path": dict(target=f"{API}/availability/rates?trace=abc&page=2"),
        "query": dict(target=f"{SEARCH}?trace=abc&page=3"),
        "query_dropped": dict(target=SEARCH),
        "body": dict(body=BODY.replace(b'"rooms": 1', b'"rooms": 2')),
        "empty_body": dict(body=b""),
        "secret": dict(secret=("A" if secret[0] != "A" else "B") + secret[1:]),
        "timestamp": dict(ts_delta=-1),
        "nonce": dict(nonce_signed="aaaaaaaaaaaaaaaa"),
    }


@pytest.mark.parametrize("component", ["method", "path", "query", "query_dropped", "body",
                                       "empty_body", "secret", "timestamp", "nonce"])
def test_changing_a_signed_component_is_invalid_signature(client, catalog, issue, component):
    key = issue("pull", signed=True)
    change = _flip(key.token)[component]
    now = int(time.time())
    headers = signed_headers(key.token, change.get("method", "POST"),
                             change.get("target", TARGET), change.get("body", BODY),
                             timestamp=now + change.get("ts_delta", 0),
                             nonce=change.get("nonce_signed"), secret=change.get("secret"))
    # sent: the baseline request, with the timestamp / nonce headers of the baseline
    headers["X-Timestamp"] = str(now)
    if "nonce_signed" in change:
        headers["X-Nonce"] = "bbbbbbbbbbbbbbbb"
    response = _send(client, "POST", TARGET, BODY, headers)
    assert_unauthorized(response, "invalid_signature")

    # control: the same request signed correctly passes (so only the change made it fail)
    good = signed_headers(key.token, "POST", TARGET, BODY)
    assert_passed_the_guards(_send(client, "POST", TARGET, BODY, good))


def test_uppercase_or_garbage_signature_of_wrong_value_is_invalid_signature(client, catalog, issue):
    key = issue("push")
    headers = signed_headers(key.token, "GET", PING)
    headers["X-Signature"] = "0" * 64
    assert_unauthorized(client.get(PING, headers=headers), "invalid_signature")
    headers = signed_headers(key.token, "GET", PING)
    headers["X-Signature"] = "not-hex"
    assert_unauthorized(client.get(PING, headers=headers), "invalid_signature")


@pytest.mark.parametrize("offset", [299, -299])
def test_clock_skew_within_300_seconds_is_accepted(client, catalog, issue, offset):
    key = issue("push")
    # floor for the future, ceil for the past: the real skew stays at or under 299 s
    now = time.time()
    ts = math.floor(now) + offset if offset > 0 else math.ceil(now) + offset
    headers = signed_headers(key.token, "GET", PING, timestamp=ts)
    assert_envelope_success(client.get(PING, headers=headers))


@pytest.mark.parametrize("offset", [301, -301, 3600, -86400])
def test_clock_skew_over_300_seconds_is_stale_request(client, catalog, issue, offset):
    key = issue("push")
    now = time.time()
    ts = math.ceil(now) + offset if offset > 0 else math.floor(now) + offset
    headers = signed_headers(key.token, "GET", PING, timestamp=ts)
    error = assert_unauthorized(client.get(PING, headers=headers), "stale_request")
    server_time = datetime.fromisoformat(error["details"]["server_time"])
    assert server_time.utcoffset() is not None
    assert abs((datetime.now(timezone.utc) - server_time).total_seconds()) < 5
    # contract 11.5: server time minus X-Timestamp, whole seconds
    assert error["details"]["skew_seconds"] == int(server_time.timestamp()) - ts
    assert abs(error["details"]["skew_seconds"] + offset) <= 60  # whatever the machine's load


def test_stale_request_comes_before_invalid_signature(client, catalog, issue):
    key = issue("push")
    headers = signed_headers(key.token, "GET", PING, timestamp=int(time.time()) - 1000,
                             secret="definitely-not-the-secret")
    assert_unauthorized(client.get(PING, headers=headers), "stale_request")


@pytest.mark.parametrize("timestamp", ["abc", "", "1700000000.5", "17e8", "0x6553f100", " "])
def test_malformed_timestamp_is_invalid_signature(client, catalog, issue, timestamp):
    key = issue("push")
    headers = signed_headers(key.token, "GET", PING, timestamp=timestamp)
    assert_unauthorized(client.get(PING, headers=headers), "invalid_signature")


@pytest.mark.parametrize("nonce", ["short77", "x" * 65, "has space1", "dot.in.it", "", "n+nonce/x"])
def test_malformed_nonce_is_invalid_signature(client, catalog, issue, nonce):
    key = issue("push")
    headers = signed_headers(key.token, "GET", PING, nonce=nonce)
    assert_unauthorized(client.get(PING, headers=headers), "invalid_signature")


@pytest.mark.parametrize("header", ["X-Timestamp", "X-Nonce"])
def test_trailing_line_break_in_timestamp_or_nonce_is_invalid_signature(client, catalog, issue,
                                                                       header):
    # Not sendable through a conforming client; set straight in the WSGI environ, signed over
    # exactly that value so the format is the only fault.
    key = issue("push")
    timestamp, nonce = str(int(time.time())), "nonce-with-break"
    if header == "X-Timestamp":
        timestamp += "\n"
    else:
        nonce += "\n"
    headers = signed_headers(key.token, "GET", PING, timestamp=timestamp, nonce=nonce)
    environ = {"HTTP_" + h.upper().replace("-", "_"): v for h, v in headers.items()}
    assert_unauthorized(client.get(PING, environ_overrides=environ), "invalid_signature")


@pytest.mark.parametrize("nonce", ["abcd-_09", "N" * 64])
def test_nonce_length_bounds_are_accepted(client, catalog, issue, nonce):
    key = issue("push")
    headers = signed_headers(key.token, "GET", PING, nonce=nonce)
    assert_envelope_success(client.get(PING, headers=headers))


@pytest.mark.parametrize("missing", ["X-Timestamp", "X-Nonce", "X-Signature"])
def test_missing_signed_header_is_invalid_signature(client, catalog, issue, missing):
    key = issue("push")
    headers = signed_headers(key.token, "GET", PING)
    del headers[missing]
    assert_unauthorized(client.get(PING, headers=headers), "invalid_signature")


def test_reused_nonce_is_replayed_request(client, catalog, issue):
    key = issue("push")
    headers = signed_headers(key.token, "GET", PING, nonce="replay-nonce-0001")
    assert_envelope_success(client.get(PING, headers=headers))
    # the identical request again
    assert_unauthorized(client.get(PING, headers=headers), "replayed_request")
    # re-signed for another target and time, but the same nonce
    again = signed_headers(key.token, "GET", WHOAMI, nonce="replay-nonce-0001",
                           timestamp=int(time.time()) - 10)
    assert_unauthorized(client.get(WHOAMI, headers=again), "replayed_request")


def test_same_nonce_with_another_key_is_accepted(client, catalog, issue):
    first, second = issue("push"), issue("push")
    nonce = "shared-nonce-value-42"
    assert_envelope_success(client.get(PING, headers=signed_headers(first.token, "GET", PING,
                                                                    nonce=nonce)))
    assert_envelope_success(client.get(PING, headers=signed_headers(second.token, "GET", PING,
                                                                    nonce=nonce)))


def test_failed_signature_does_not_burn_the_nonce(client, catalog, issue):
    key = issue("push")
    bad = signed_headers(key.token, "GET", PING, nonce="nonce-kept-for-later", secret="wrong")
    assert_unauthorized(client.get(PING, headers=bad), "invalid_signature")
    good = signed_headers(key.token, "GET", PING, nonce="nonce-kept-for-later")
    assert_envelope_success(client.get(PING, headers=good))


def test_unsigned_pull_key_may_also_sign(client, catalog, issue):
    key = issue("pull")
    assert key.requires_signature is False
    assert_envelope_success(client.get(PING, headers=signed_headers(key.token, "GET", PING)))
    bad = signed_headers(key.token, "GET", PING, secret="wrong-secret")
    assert_unauthorized(client.get(PING, headers=bad), "invalid_signature")
    assert_envelope_success(client.get(PING, headers=bearer(key.token)))


# --- /ping and /whoami ---------------------------------------------------------------------------

PRODUCTION_CATALOG = {
    "properties": [{"code": "PRD1", "name": "Lisboa Live", "environment": "production",
                    "country": "PT", "timezone": "Europe/Lisbon", "currency": "EUR",
                    "max_child_age": 11,
                    "room_types": [{"code": "DBL", "name": "Double", "max_occupancy": 2}]}],
    "partners": [{"code": "acme", "name": "Acme Travel",
                  "mappings": [{"property": "PRD1", "hotel_code": "ACME-PRD",
                                "room_types": {"DBL": "ACME-PRD-DBL"}}]}],
}


def test_environment_of_the_key_is_reported(client, catalog, issue):
    sandbox, production = issue("pull"), issue("pull", environment="production")
    assert sandbox.key_id.startswith("sbx_") and production.key_id.startswith("live_")

    assert assert_envelope_success(
        client.get(PING, headers=bearer(sandbox.token)))["environment"] == "sandbox"
    assert assert_envelope_success(
        client.get(PING, headers=bearer(production.token)))["environment"] == "production"

    who = assert_envelope_success(client.get(WHOAMI, headers=bearer(production.token)))
    assert who["key"]["environment"] == "production"
    assert who["key"]["key_id"] == production.key_id
    assert who["mapped_properties"] == 0  # acme's demo properties are all sandbox
    who = assert_envelope_success(client.get(WHOAMI, headers=bearer(sandbox.token)))
    assert who["key"]["environment"] == "sandbox"
    assert who["mapped_properties"] == 2


def test_mapped_properties_counts_only_the_keys_environment(client, catalog, issue, db):
    db.run(load_catalog, parse_catalog(json.dumps(PRODUCTION_CATALOG)))
    sandbox, production = issue("none"), issue("none", environment="production")
    assert assert_envelope_success(
        client.get(WHOAMI, headers=bearer(sandbox.token)))["mapped_properties"] == 2
    assert assert_envelope_success(
        client.get(WHOAMI, headers=bearer(production.token)))["mapped_properties"] == 1


def test_whoami_describes_the_key_and_never_its_secret(client, catalog, issue):
    key = issue("pull", name="Acme reservations feed", rate_limit=321)
    response = client.get(WHOAMI, headers=bearer(key.token))
    data = assert_envelope_success(response)
    assert data["partner"] == {"code": "acme", "name": "Acme Travel"}
    assert data["key"] == {"key_id": key.key_id, "name": "Acme reservations feed",
                           "environment": "sandbox", "requires_signature": False,
                           "expires_at": None, "rate_limit_per_minute": 321}
    assert sorted(data["scopes"]) == sorted(PULL_SCOPES)
    assert data["mapped_properties"] == 2
    _, secret = split_token(key.token)
    raw = response.get_data(as_text=True)
    assert secret not in raw and key.token not in raw
    assert all(secret not in value for value in response.headers.values())


def test_whoami_of_a_signed_expiring_push_key(client, catalog, issue):
    expires_at = datetime(2040, 1, 31, 12, 30, tzinfo=timezone.utc)
    key = issue("push", expires_at=expires_at, extra_scopes=["content.read"])
    response = client.get(WHOAMI, headers=signed_headers(key.token, "GET", WHOAMI))
    data = assert_envelope_success(response)
    assert data["key"]["requires_signature"] is True
    parsed = datetime.fromisoformat(data["key"]["expires_at"])
    assert parsed.utcoffset() is not None and parsed == expires_at
    assert sorted(data["scopes"]) == sorted(PUSH_SCOPES + ["content.read"])
    assert split_token(key.token)[1] not in response.get_data(as_text=True)


def test_whoami_of_a_key_with_no_scopes(client, catalog, issue):
    key = issue("none")
    data = assert_envelope_success(client.get(WHOAMI, headers=bearer(key.token)))
    assert data["scopes"] == []


def _pause(app, property_code):
    # The operator groups are plain click groups: `flask --app app ...` (FlaskGroup) pushes the
    # app context for them, the bare test runner does not, so the test pushes it.
    with app.app_context():
        result = app.test_cli_runner().invoke(
            args=["distribution", "pause", "--partner", "acme", "--property", property_code])
    assert result.exit_code == 0, (result.output, result.exception)


def test_whoami_counts_paused_mappings(client, catalog, issue, app):
    key = issue("pull")
    _pause(app, "LIS1")
    assert assert_envelope_success(
        client.get(WHOAMI, headers=bearer(key.token)))["mapped_properties"] == 2
    _pause(app, "OPO1")
    assert assert_envelope_success(
        client.get(WHOAMI, headers=bearer(key.token)))["mapped_properties"] == 2


# --- /ping's body -----------------------------------------------------------------------------

def test_ping_body_is_the_schemas_dump(client, catalog, issue):
    """/ping is answered without flask-smorest's dump; its body must be what the described
    schema would have produced."""
    key = issue("pull")
    response = client.get(PING, headers=bearer(key.token))
    body = response.get_json()
    data = dict(body["data"], server_time=datetime.fromisoformat(body["data"]["server_time"]))
    with client.application.test_request_context():
        g.request_id = body["request_id"]
        dumped = enveloped(PingSchema)().dump(data)
    assert json.loads(response.get_data()) == dumped
    assert list(body) == list(dumped) and list(body["data"]) == list(dumped["data"])
