"""The key cache (connectivity/auth/keycache.py): web processes keep copies of key rows, and
contract section 2's "revoking a key takes effect for the next request" still holds, in every
process, because each request confirms its copy against the key-state generation in Redis.

Changes made here with plain SQL (`_unannounced`) are the control: they bypass the operator code
that announces a change, so they show the copy really is what answered, and what the cache does
when an announcement is lost."""

from __future__ import annotations

import json
import time

import psycopg
import redis

from connectivity.auth.keycache import generation_key
from connectivity.auth.ratelimit import KeyRateLimiter
from connectivity.operator.keys import revoke_key

from tests.support.envelope import (API, assert_envelope_failure, assert_envelope_success,
                      assert_passed_the_guards, assert_unauthorized)
from tests.support.signing import bearer, signed_headers
from connectivity.web.services import services_of

PING = f"{API}/ping"
HOTELS = f"{API}/mapping/hotels"
DEAD_REDIS = "redis://127.0.0.1:1/0"


def _copies(application) -> dict:
    return services_of(application).guards.key_cache._copies


def _cached(client, application, token: str) -> None:
    """Requests until this app answers the key from its copy."""
    for _ in range(3):
        assert_envelope_success(client.get(PING, headers=bearer(token)))
    key_id = token.split(".")[0]
    assert key_id in _copies(application), "the key was never copied"


def _unannounced(settings, statement: str, *params) -> None:
    with psycopg.connect(settings.database_url, autocommit=True) as conn:
        conn.execute(statement, params)


def _revoke_unannounced(settings, key_id: str) -> None:
    _unannounced(settings, "UPDATE api_keys SET revoked_at = now() WHERE key_id = %s", key_id)


# --- revocation -----------------------------------------------------------------------------

def test_a_cached_key_is_in_use(app, client, catalog, issue, settings):
    """The control: a revocation nobody announces is not seen while the copy is trusted (the
    copies really answer), which is why every operator change is announced."""
    key = issue("pull")
    _cached(client, app, key.token)
    _revoke_unannounced(settings, key.key_id)
    assert_envelope_success(client.get(PING, headers=bearer(key.token)))


def test_a_revoked_cached_key_is_refused_from_the_next_request(app, client, catalog, issue, db):
    key = issue("pull")
    _cached(client, app, key.token)
    db.run(revoke_key, key.key_id)
    assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_revoked")
    assert_unauthorized(client.get(f"{API}/whoami", headers=bearer(key.token)), "key_revoked")


def test_revocation_by_the_cli_reaches_every_web_process(make_app, catalog, issue):
    """Two web apps (two caches) sharing Redis, and the operator's CLI in a third."""
    first, second = make_app(), make_app()
    key = issue("push", signed=False)
    clients = [first.test_client(), second.test_client()]
    for application, client in zip((first, second), clients):
        _cached(client, application, key.token)

    result = make_app().test_cli_runner().invoke(args=["keys", "revoke", key.key_id])
    assert result.exit_code == 0, result.output

    for client in clients:
        assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_revoked")


def test_a_refusal_on_a_copy_is_decided_on_the_current_row(app, client, catalog, issue,
                                                           settings):
    """Even when the change was not announced, a copy never refuses on its own: a revoked key
    gets key_revoked (which comes first in section 2's order), not the later check's code."""
    bad_signature, replay = issue("pull", signed=True), issue("pull", signed=True)
    replayed = signed_headers(replay.token, "GET", PING)
    for key in (bad_signature, replay):
        for _ in range(3):
            assert_envelope_success(
                client.get(PING, headers=signed_headers(key.token, "GET", PING)))
        assert key.key_id in _copies(app)
    assert_envelope_success(client.get(PING, headers=replayed))
    for key in (bad_signature, replay):
        _revoke_unannounced(settings, key.key_id)

    wrong = signed_headers(bad_signature.token, "GET", PING, secret="wrong")
    assert_unauthorized(client.get(PING, headers=wrong), "key_revoked")
    assert_unauthorized(client.get(PING, headers=replayed), "key_revoked")
    # The row read for the refusal replaced the copy: a good request is refused too.
    for key in (bad_signature, replay):
        assert_unauthorized(client.get(PING, headers=signed_headers(key.token, "GET", PING)),
                            "key_revoked")


def test_a_key_revoked_before_it_was_cached_stays_refused(app, client, catalog, issue, db):
    key = issue("pull")
    db.run(revoke_key, key.key_id)
    for _ in range(3):
        assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_revoked")


# --- mappings ---------------------------------------------------------------------------------

def test_a_catalogue_load_flips_no_mapped_properties_on_the_next_request(app, client, catalog,
                                                                        issue, tmp_path):
    key = issue("pull", environment="production")
    for _ in range(3):
        assert_envelope_failure(client.get(HOTELS, headers=bearer(key.token)), 403,
                                "no_mapped_properties")
    assert key.key_id in _copies(app)

    production = {"properties": [{
        "code": "PRD1", "name": "Production One", "environment": "production", "country": "PT",
        "timezone": "Europe/Lisbon", "currency": "EUR", "max_child_age": 11,
        "room_types": [{"code": "DBL", "name": "Double", "max_occupancy": 2}], "rate_plans": []}],
        "partners": [{"code": "acme", "name": "Acme Renamed", "mappings": [
            {"property": "PRD1", "hotel_code": "ACME-PRD1", "active": True,
             "room_types": {"DBL": "ACME-DBL"}, "rate_plans": {}}]}]}
    catalogue = tmp_path / "production.json"
    catalogue.write_text(json.dumps(production))
    result = app.test_cli_runner().invoke(args=["catalog", "load", str(catalogue)])
    assert result.exit_code == 0, result.output

    assert_passed_the_guards(client.get(HOTELS, headers=bearer(key.token)))
    who = assert_envelope_success(client.get(f"{API}/whoami", headers=bearer(key.token)))
    assert who["partner"]["name"] == "Acme Renamed"
    assert who["mapped_properties"] == 1


# --- Redis unreachable or emptied -----------------------------------------------------------------

def test_without_redis_no_copy_is_trusted(app, client, catalog, issue, settings):
    key = issue("pull")
    _cached(client, app, key.token)
    guards = services_of(app).guards
    working = guards.rate_limiter
    guards.rate_limiter = KeyRateLimiter(DEAD_REDIS, settings.redis_prefix)
    try:
        _revoke_unannounced(settings, key.key_id)  # as if Redis had lost the announcement
        assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_revoked")
    finally:
        guards.rate_limiter = working


def test_a_lost_generation_trusts_no_copy_and_is_set_again(app, client, catalog, issue,
                                                          settings):
    key = issue("pull")
    _cached(client, app, key.token)
    server = redis.Redis.from_url(settings.redis_url)
    server.delete(generation_key(settings.redis_prefix))  # a restart without persistence
    _revoke_unannounced(settings, key.key_id)
    assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_revoked")
    assert server.get(generation_key(settings.redis_prefix)) is not None


def test_a_copy_expires_after_the_ttl(make_app, catalog, issue, settings):
    """What bounds a lost announcement: copies are dropped after KEY_CACHE_TTL_SECONDS."""
    application = make_app(key_cache_ttl_seconds=0.5)
    client = application.test_client()
    key = issue("pull")
    _cached(client, application, key.token)
    _revoke_unannounced(settings, key.key_id)
    time.sleep(0.6)
    assert_unauthorized(client.get(PING, headers=bearer(key.token)), "key_revoked")


def test_a_zero_ttl_keeps_no_copy(make_app, catalog, issue):
    application = make_app(key_cache_ttl_seconds=0)
    client = application.test_client()
    key = issue("pull")
    for _ in range(3):
        assert_envelope_success(client.get(PING, headers=bearer(key.token)))
    assert not _copies(application)


def test_the_cli_says_when_it_could_not_announce_a_revocation(make_app, catalog, issue, settings):
    key = issue("pull")
    result = make_app(redis_url=DEAD_REDIS).test_cli_runner().invoke(
        args=["keys", "revoke", key.key_id])
    assert result.exit_code != 0
    assert f"{key.key_id} is revoked in the database" in result.output
    assert "key caches could not be told" in result.output
    with psycopg.connect(settings.database_url) as conn:
        assert conn.execute("SELECT revoked_at IS NOT NULL FROM api_keys WHERE key_id = %s",
                            (key.key_id,)).fetchone() == (True,)
