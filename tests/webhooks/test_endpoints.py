"""POST, GET and DELETE /webhook-endpoints and .../enable (contract 12.3): the answers, the
secret shown once and stored sealed, visibility by the key's scopes, the limit of 10, and every
field's refusals in the envelope."""

from __future__ import annotations

import base64
import threading

from tests.support.envelope import API, assert_envelope_failure, assert_envelope_success
from tests.support.signing import bearer
from tests.webhooks.conftest import ENDPOINTS, create, created

HOOK = "http://127.0.0.1:8080/hook"
PUBLIC = "https://93.184.216.34/hook"  # a global address literal: no resolution needed


def test_create_answers_the_endpoint_and_a_secret_shown_once(client, pull, db):
    data = created(client, pull, HOOK, ["booking.confirmed", "booking.cancelled"],
                   description="to our PMS")
    endpoint, secret = data["endpoint"], data["secret"]
    assert set(data) == {"endpoint", "secret"}
    assert endpoint["endpoint_id"].startswith("we_") and len(endpoint["endpoint_id"]) == 27
    assert (endpoint["url"], endpoint["event_types"], endpoint["description"],
            endpoint["status"]) == (HOOK, ["booking.confirmed", "booking.cancelled"],
                                    "to our PMS", "enabled")
    assert endpoint["created_at"].endswith("+00:00")
    assert secret.startswith("whsec_") and 24 <= len(base64.b64decode(secret[6:])) <= 64
    listed = assert_envelope_success(client.get(ENDPOINTS, headers=pull))
    assert listed == {"endpoints": [endpoint]}
    # Stored sealed: neither the secret nor its decoded bytes are in the row.
    row = db.run(lambda conn: conn.execute(
        "SELECT secret_sealed::text AS sealed, row_to_json(e)::text AS whole "
        "FROM webhook_endpoints e").fetchone())
    assert secret not in row["whole"] and secret[6:] not in row["whole"]


def test_two_endpoints_get_two_secrets(client, pull):
    first = created(client, pull, HOOK)["secret"]
    assert created(client, pull, HOOK)["secret"] != first


def test_delete_answers_deleted_then_the_endpoint_is_gone(client, pull):
    endpoint_id = created(client, pull, HOOK)["endpoint"]["endpoint_id"]
    data = assert_envelope_success(client.delete(f"{ENDPOINTS}/{endpoint_id}", headers=pull))
    assert data["endpoint"]["status"] == "deleted"
    assert assert_envelope_success(client.get(ENDPOINTS, headers=pull)) == {"endpoints": []}
    assert_envelope_failure(client.delete(f"{ENDPOINTS}/{endpoint_id}", headers=pull), 404,
                            "not_found")
    assert_envelope_failure(client.post(f"{ENDPOINTS}/{endpoint_id}/ping", headers=pull), 404,
                            "not_found")


def test_another_partners_endpoint_is_not_found(client, pull, issue):
    globex = bearer(issue("pull", partner="globex").token)
    endpoint_id = created(client, pull, HOOK)["endpoint"]["endpoint_id"]
    assert assert_envelope_success(client.get(ENDPOINTS, headers=globex)) == {"endpoints": []}
    for method, path in (("delete", ""), ("post", "/enable"), ("post", "/ping"),
                         ("get", "/deliveries")):
        answer = getattr(client, method)(f"{ENDPOINTS}/{endpoint_id}{path}", headers=globex)
        assert_envelope_failure(answer, 404, "not_found")
    unknown = "we_" + "A" * 24
    assert_envelope_failure(client.delete(f"{ENDPOINTS}/{unknown}", headers=pull), 404,
                            "not_found")


def test_endpoints_belong_to_the_environment(client, pull, issue):
    live = bearer(issue("pull", environment="production").token)
    created(client, pull, HOOK)
    assert assert_envelope_success(client.get(ENDPOINTS, headers=live)) == {"endpoints": []}


def test_a_key_sees_only_endpoints_whose_types_it_may_all_see(client, pull, push):
    bookings = created(client, pull, HOOK, ["booking.confirmed"])["endpoint"]
    mapping = created(client, pull, HOOK, ["mapping.paused"])["endpoint"]
    everything = created(client, pull, HOOK, ["*"])["endpoint"]
    batches = created(client, push, HOOK, ["ari_batch.finished"])["endpoint"]
    assert everything["event_types"] == ["*"]
    # A push key sees mapping.* (ari.write) but not booking.*; "*" of the pull key covers
    # booking.*, so the push key does not see it either.
    seen_by_push = assert_envelope_success(client.get(ENDPOINTS, headers=push))["endpoints"]
    assert [e["endpoint_id"] for e in seen_by_push] == [mapping["endpoint_id"],
                                                         batches["endpoint_id"]]
    seen_by_pull = assert_envelope_success(client.get(ENDPOINTS, headers=pull))["endpoints"]
    assert [e["endpoint_id"] for e in seen_by_pull] == [
        bookings["endpoint_id"], mapping["endpoint_id"], everything["endpoint_id"]]
    assert_envelope_failure(client.delete(f"{ENDPOINTS}/{bookings['endpoint_id']}",
                                          headers=push), 404, "not_found")
    assert_envelope_success(client.delete(f"{ENDPOINTS}/{mapping['endpoint_id']}",
                                          headers=push))


def test_a_type_the_key_may_not_see_is_insufficient_scope(client, push, issue):
    error = assert_envelope_failure(create(client, push, HOOK, ["booking.confirmed"]), 403,
                                    "insufficient_scope")
    assert error["details"]["required"] == ["booking.read"]
    none = bearer(issue("none").token)
    assert_envelope_failure(client.get(ENDPOINTS, headers=none), 403, "insufficient_scope")


def test_at_most_ten_endpoints_per_partner_and_environment(client, pull, issue):
    ids = [created(client, pull, HOOK)["endpoint"]["endpoint_id"] for _ in range(10)]
    error = assert_envelope_failure(create(client, pull, HOOK), 409, "limit_reached")
    assert error["details"] == {"limit": 10}
    # Another environment and another partner have their own ten.
    created(client, bearer(issue("pull", environment="production").token), PUBLIC)
    created(client, bearer(issue("pull", partner="globex").token), HOOK)
    # A deletion frees a place.
    assert_envelope_success(client.delete(f"{ENDPOINTS}/{ids[3]}", headers=pull))
    created(client, pull, HOOK)
    assert_envelope_failure(create(client, pull, HOOK), 409, "limit_reached")


def test_creations_at_once_never_pass_the_limit(app, pull, db):
    # Eight endpoints, then six creations at once for the last two places.
    client = app.test_client()
    for _ in range(8):
        created(client, pull, HOOK)
    statuses = []
    start = threading.Barrier(6)

    def one():
        start.wait()
        statuses.append(create(app.test_client(), pull, HOOK).status_code)
    threads = [threading.Thread(target=one) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(statuses) == [201, 201, 409, 409, 409, 409]
    assert db.run(lambda conn: conn.execute(
        "SELECT count(*) AS n FROM webhook_endpoints").fetchone()["n"]) == 10


def test_enable_enables_a_disabled_endpoint(client, pull, db):
    endpoint_id = created(client, pull, HOOK)["endpoint"]["endpoint_id"]
    db.run(lambda conn: conn.execute(
        "UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now(), "
        "failing_since = now() - interval '6 days'"))
    listed = assert_envelope_success(client.get(ENDPOINTS, headers=pull))["endpoints"]
    assert listed[0]["status"] == "disabled"
    data = assert_envelope_success(client.post(f"{ENDPOINTS}/{endpoint_id}/enable",
                                               headers=pull))
    assert data["endpoint"]["status"] == "enabled"
    assert db.run(lambda conn: conn.execute(
        "SELECT failing_since FROM webhook_endpoints").fetchone()["failing_since"]) is None


def test_production_keys_need_https_and_a_global_address(client, issue, catalog):
    live = bearer(issue("pull", environment="production").token)
    assert created(client, live, PUBLIC)["endpoint"]["url"] == PUBLIC
    for url in ("http://93.184.216.34/hook", "https://127.0.0.1/hook", "https://localhost/x",
                "https://[::1]/hook", "https://10.1.2.3/hook"):
        error = assert_envelope_failure(create(client, live, url), 422, "validation_failed")
        assert list(error["details"]["fields"]) == ["url"], url


# One test for many cases, each named in its failure: a test's set-up (a catalogue) costs more
# than a request.
SANDBOX_REFUSED = [
    "https://10.0.0.8/hook", "http://172.16.5.4/", "http://192.168.1.1/", "http://[fd00::1]/",
    "http://169.254.169.254/latest/meta-data/", "http://[fe80::1]/", "http://224.0.0.1/",
    "http://0.0.0.0:8080/", "http://[::]/", "http://240.0.0.1/", "http://100.64.0.1/",
    "http://[::ffff:10.0.0.1]/", "http://[64:ff9b::a00:1]/",
]


def test_sandbox_keys_are_refused_non_loopback_internal_addresses(client, pull):
    for url in SANDBOX_REFUSED:
        error = assert_envelope_failure(create(client, pull, url), 422, "validation_failed")
        assert list(error["details"]["fields"]) == ["url"], url


def test_sandbox_keys_may_use_http_and_loopback(client, pull):
    for url in ("http://127.0.0.1:8080/hook", "http://localhost/hook",
                "https://[::1]:8443/hook", "http://127.1.2.3/"):
        assert created(client, pull, url)["endpoint"]["url"] == url


BAD_INPUT = [  # (body, the field named)
    ({"event_types": ["booking.confirmed"]}, "url"),
    ({"url": HOOK}, "event_types"),
    ({"url": "", "event_types": ["booking.confirmed"]}, "url"),
    ({"url": 7, "event_types": ["booking.confirmed"]}, "url"),
    ({"url": "/relative/hook", "event_types": ["booking.confirmed"]}, "url"),
    ({"url": "ftp://127.0.0.1/hook", "event_types": ["booking.confirmed"]}, "url"),
    ({"url": "http://127.0.0.1/" + "a" * 1990, "event_types": ["booking.confirmed"]}, "url"),
    ({"url": "http://user:pw@127.0.0.1/", "event_types": ["booking.confirmed"]}, "url"),
    ({"url": "http://127.0.0.1:99999/", "event_types": ["booking.confirmed"]}, "url"),
    ({"url": "http://no-such-host.invalid/", "event_types": ["booking.confirmed"]}, "url"),
    ({"url": HOOK, "event_types": []}, "event_types"),
    ({"url": HOOK, "event_types": "booking.confirmed"}, "event_types"),
    ({"url": HOOK, "event_types": ["ping"]}, "event_types"),
    ({"url": HOOK, "event_types": ["booking.shipped"]}, "event_types"),
    ({"url": HOOK, "event_types": ["*", "booking.confirmed"]}, "event_types"),
    ({"url": HOOK, "event_types": ["booking.confirmed", "booking.confirmed"]}, "event_types"),
    ({"url": HOOK, "event_types": ["booking.confirmed"] * 21}, "event_types"),
    ({"url": HOOK, "event_types": [3]}, "event_types.0"),
    ({"url": HOOK, "event_types": ["booking.confirmed"], "description": "d" * 201},
     "description"),
    ({"url": HOOK, "event_types": ["booking.confirmed"], "description": 5}, "description"),
    ({"url": HOOK, "event_types": ["booking.confirmed"], "secret": "whsec_x"}, "secret"),
    ({"url": "http://127.0.0.1/\x07", "event_types": ["booking.confirmed"]}, "url"),
    ({"url": HOOK, "event_types": ["booking.confirmed"], "description": ""}, "description"),
]


def test_bad_input_is_422_naming_the_field(client, pull):
    for body, field in BAD_INPUT:
        error = assert_envelope_failure(client.post(ENDPOINTS, headers=pull, json=body), 422,
                                        "validation_failed")
        assert field in error["details"]["fields"], (body, error)
    assert assert_envelope_success(client.get(ENDPOINTS, headers=pull)) == {"endpoints": []}


def test_a_url_of_exactly_2000_characters_is_accepted(client, pull):
    url = "http://127.0.0.1/" + "a" * (2000 - len("http://127.0.0.1/"))
    assert created(client, pull, url)["endpoint"]["url"] == url


def test_bodies_that_are_not_json_objects(client, pull):
    assert_envelope_failure(client.post(ENDPOINTS, headers=pull, data="{",
                                        content_type="application/json"), 400, "malformed_json")
    assert_envelope_failure(client.post(ENDPOINTS, headers=pull, data="url=x",
                                        content_type="text/plain"), 415,
                            "unsupported_media_type")
    assert_envelope_failure(client.post(ENDPOINTS, headers=pull, json=[]), 422,
                            "validation_failed")


def test_a_malformed_endpoint_id_is_not_found(client, pull):
    assert_envelope_failure(client.delete(f"{ENDPOINTS}/nope", headers=pull), 404, "not_found")
    assert_envelope_failure(client.delete(f"{API}/webhook-endpoints/we_short", headers=pull),
                            404, "not_found")
