"""Contract section 5: per-key rate limits in a moving 60-second window."""

from __future__ import annotations

import re
import time

import pytest

from tests.support.envelope import API, assert_envelope_failure, assert_envelope_success, assert_unauthorized
from tests.support.signing import bearer, signed_headers, split_token

PING = f"{API}/ping"
WHOAMI = f"{API}/whoami"
RATELIMIT_RE = re.compile(r'^"default";r=(\d+);t=(\d+)$')


def remaining_and_reset(response) -> tuple[int, int]:
    match = RATELIMIT_RE.match(response.headers.get("RateLimit", ""))
    assert match, response.headers
    return int(match.group(1)), int(match.group(2))


def _wrong(token: str) -> str:
    key_id, secret = split_token(token)
    return f"{key_id}.{'x' if secret[0] != 'x' else 'y'}{secret[1:]}"


@pytest.mark.slow
def test_limit_headers_429_and_an_honest_retry_after(client, catalog, issue):
    key = issue("pull", rate_limit=3)
    headers = bearer(key.token)
    for expected_remaining, path in zip((2, 1, 0), (PING, WHOAMI, PING)):
        response = client.get(path, headers=headers)
        assert_envelope_success(response)
        assert response.headers["RateLimit-Policy"] == '"default";q=3;w=60'
        remaining, reset = remaining_and_reset(response)
        assert remaining == expected_remaining
        if remaining > 0:
            assert reset == 0
        else:
            assert 1 <= reset <= 60

    response = client.get(PING, headers=headers)
    assert_envelope_failure(response, 429, "rate_limited")
    assert re.fullmatch(r"\d+", response.headers.get("Retry-After", "")), response.headers
    retry_after = int(response.headers["Retry-After"])
    assert 1 <= retry_after <= 60
    assert response.headers["RateLimit-Policy"] == '"default";q=3;w=60'
    assert remaining_and_reset(response)[0] == 0

    # a second refusal inside the window is still refused, and not counted against later
    assert_envelope_failure(client.get(WHOAMI, headers=headers), 429, "rate_limited")

    time.sleep(retry_after)
    response = client.get(PING, headers=headers)
    assert_envelope_success(response)
    assert response.headers["RateLimit-Policy"] == '"default";q=3;w=60'


def test_failed_authentication_does_not_consume_the_quota(client, catalog, issue):
    key = issue("pull", rate_limit=2)
    for _ in range(5):
        assert_unauthorized(client.get(PING, headers=bearer(_wrong(key.token))),
                            "invalid_credentials")
    for expected in (1, 0):
        response = client.get(PING, headers=bearer(key.token))
        assert_envelope_success(response)
        assert remaining_and_reset(response)[0] == expected
    assert_envelope_failure(client.get(PING, headers=bearer(key.token)), 429, "rate_limited")


def test_failed_signatures_do_not_consume_the_quota(client, catalog, issue):
    key = issue("push", rate_limit=2)
    assert_unauthorized(client.get(PING, headers=signed_headers(key.token, "GET", PING,
                                                                secret="wrong")),
                        "invalid_signature")
    assert_unauthorized(client.get(PING, headers=signed_headers(key.token, "GET", PING,
                                                                timestamp=1)),
                        "stale_request")
    assert_unauthorized(client.get(PING, headers=bearer(key.token)), "signature_required")
    replay = signed_headers(key.token, "GET", PING)
    response = client.get(PING, headers=replay)
    assert_envelope_success(response)
    assert remaining_and_reset(response)[0] == 1
    assert_unauthorized(client.get(PING, headers=replay), "replayed_request")
    response = client.get(PING, headers=signed_headers(key.token, "GET", PING))
    assert_envelope_success(response)
    assert remaining_and_reset(response)[0] == 0


def test_unauthenticated_responses_carry_no_rate_limit_headers(client, catalog, issue):
    key = issue("pull", rate_limit=5)
    response = client.get(PING, headers=bearer(_wrong(key.token)))
    assert_unauthorized(response, "invalid_credentials")
    assert "RateLimit" not in response.headers and "RateLimit-Policy" not in response.headers


def test_forbidden_responses_count(client, catalog, issue):
    key = issue("none", rate_limit=2)
    for expected in (1, 0):
        response = client.get(f"{API}/mapping/hotels", headers=bearer(key.token))
        assert_envelope_failure(response, 403, "insufficient_scope")
        assert remaining_and_reset(response)[0] == expected
    response = client.get(PING, headers=bearer(key.token))
    assert_envelope_failure(response, 429, "rate_limited")
    assert int(response.headers["Retry-After"]) >= 1


def test_no_mapped_properties_responses_count(client, catalog, issue):
    key = issue("pull", environment="production", rate_limit=1)
    assert_envelope_failure(client.get(f"{API}/mapping/hotels", headers=bearer(key.token)), 403,
                            "no_mapped_properties")
    assert_envelope_failure(client.get(WHOAMI, headers=bearer(key.token)), 429, "rate_limited")


def test_the_limit_comes_before_scope_checks(client, catalog, issue):
    key = issue("none", rate_limit=1)
    assert_envelope_success(client.get(PING, headers=bearer(key.token)))
    assert_envelope_failure(client.get(f"{API}/mapping/hotels", headers=bearer(key.token)), 429,
                            "rate_limited")


def test_keys_have_independent_quotas(client, catalog, issue):
    first, second = issue("pull", rate_limit=1), issue("pull", rate_limit=2)
    assert_envelope_success(client.get(PING, headers=bearer(first.token)))
    assert_envelope_failure(client.get(PING, headers=bearer(first.token)), 429, "rate_limited")

    response = client.get(PING, headers=bearer(second.token))
    assert_envelope_success(response)
    assert response.headers["RateLimit-Policy"] == '"default";q=2;w=60'
    assert remaining_and_reset(response)[0] == 1
    assert_envelope_success(client.get(WHOAMI, headers=bearer(second.token)))
    assert_envelope_failure(client.get(PING, headers=bearer(second.token)), 429, "rate_limited")
    # the first key is still limited, whatever the second did
    assert_envelope_failure(client.get(PING, headers=bearer(first.token)), 429, "rate_limited")


def test_limit_policy_reflects_the_keys_own_limit(client, catalog, issue):
    key = issue("pull")  # the default limit
    response = client.get(PING, headers=bearer(key.token))
    assert_envelope_success(response)
    who = client.get(WHOAMI, headers=bearer(key.token)).get_json()["data"]
    limit = who["key"]["rate_limit_per_minute"]
    assert response.headers["RateLimit-Policy"] == f'"default";q={limit};w=60'
    assert remaining_and_reset(response) == (limit - 1, 0)


def test_the_window_is_the_one_the_limits_library_keeps(client, catalog, issue, settings):
    """The limiter sends the `limits` library's own scripts in one round trip: the window it
    writes is the library's, read back here through the library's public API."""
    from limits import RateLimitItemPerMinute
    from limits.storage import storage_from_string
    from limits.strategies import MovingWindowRateLimiter

    key = issue("pull", rate_limit=5)
    for _ in range(3):
        response = client.get(PING, headers=bearer(key.token))
    assert remaining_and_reset(response) == (2, 0)
    library = MovingWindowRateLimiter(storage_from_string(
        settings.redis_url, key_prefix=f"{settings.redis_prefix}limits"))
    stats = library.get_window_stats(RateLimitItemPerMinute(5), key.key_id)
    assert stats.remaining == 2
    assert time.time() < stats.reset_time <= time.time() + 60


@pytest.mark.parametrize("reloaded_by_someone_else", [False, True])
def test_a_flushed_script_cache_is_reloaded_and_counts_once(client, catalog, issue, settings,
                                                           reloaded_by_someone_else):
    import redis
    from limits.storage import RedisStorage

    key = issue("pull", rate_limit=5)
    assert remaining_and_reset(client.get(PING, headers=bearer(key.token)))[0] == 4
    server = redis.Redis.from_url(settings.redis_url)
    server.script_flush()  # as after a Redis restart
    if reloaded_by_someone_else:
        # Another process's plain hit() reloaded one of the two scripts: the hit then runs
        # and only the count is missing; the request must still be counted once.
        server.script_load(RedisStorage.SCRIPT_ACQUIRE_MOVING_WINDOW)
    response = client.get(PING, headers=bearer(key.token))
    assert_envelope_success(response)
    assert remaining_and_reset(response)[0] == 3
    assert remaining_and_reset(client.get(PING, headers=bearer(key.token)))[0] == 2
