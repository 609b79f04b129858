"""Contract section 1 (wire conventions) and 6 (error codes): request ids, body cap, media type,
JSON syntax, validation paths, unexpected failures, unreachable backing services, health and the
published OpenAPI description."""

from __future__ import annotations

import json
import re

import pytest
from marshmallow import Schema, fields, validate

from connectivity.web.api import ApiBlueprint
from connectivity.auth.access import requires

from tests.support.envelope import (API, REQUEST_ID_RE, assert_envelope_failure, assert_envelope_success,
                      assert_passed_the_guards)
from tests.support.ended_sessions import end_idle_sessions
from tests.support.signing import bearer, signed_headers
from connectivity.web.services import services_of

PING = f"{API}/ping"
SEARCH = f"{API}/availability/search"
PROBE = f"{API}/wire-probe"
SEARCH_BODY = {"hotel_codes": ["ACME-LIS"], "check_in": "2031-05-01", "check_out": "2031-05-03",
               "rooms": 1, "occupancy": [{"adults": 2}]}
ANY_TOKEN = "sbx_" + "A" * 24 + "." + "s" * 44


# --- an app with extra probe routes (registered before its first request) -----------------------

class ProbeOccupancySchema(Schema):
    """Named apart from the service's OccupancySchema: apispec names components by class."""
    adults = fields.Integer(required=True, strict=True, validate=validate.Range(1, 20))
    child_ages = fields.List(fields.Integer(strict=True, validate=validate.Range(0, 17)))


class ProbeSchema(Schema):
    name = fields.String(required=True, validate=validate.Length(max=10))
    items = fields.List(fields.Nested(ProbeOccupancySchema), required=True,
                        validate=validate.Length(min=1))


def _probe_blueprint() -> ApiBlueprint:
    blp = ApiBlueprint("wire_probe", __name__, url_prefix=PROBE)

    @blp.route("/echo", methods=["POST"])
    @blp.arguments(ProbeSchema)
    @requires(needs_mapped_properties=False)
    def echo(args):
        return {"success": True, "data": args, "request_id": "n/a"}

    @blp.route("/boom", methods=["GET"])
    @requires(needs_mapped_properties=False)
    def boom():
        raise RuntimeError("kaboom: SELECT secret_hash FROM api_keys WHERE key_id = 'x'")

    return blp


@pytest.fixture
def probe_client(make_app, db):
    application = make_app()
    application.extensions["connectivity.api"].register_blueprint(_probe_blueprint())
    return application.test_client()


# --- X-Request-Id --------------------------------------------------------------------------------

@pytest.mark.parametrize("sent", ["abc", "req-2031.05.01_ABC-xyz", "a" * 128, "0", "._-"])
def test_valid_request_id_is_echoed(client, catalog, issue, sent):
    key = issue("pull")
    response = client.get(PING, headers={**bearer(key.token), "X-Request-Id": sent})
    assert_envelope_success(response)
    assert response.headers["X-Request-Id"] == sent
    assert response.get_json()["request_id"] == sent
    # also on a failure
    response = client.get(PING, headers={"X-Request-Id": sent})
    assert_envelope_failure(response, 401, "missing_credentials")
    assert response.headers["X-Request-Id"] == sent


@pytest.mark.parametrize("sent", ["", "has space", "a" * 129, "slash/ed", "semi;colon",
                                  "quote\"d", "tab\tbed", "caf\u00e9"])
def test_invalid_request_id_is_replaced(client, catalog, issue, sent):
    key = issue("pull")
    response = client.get(PING, headers={**bearer(key.token), "X-Request-Id": sent})
    assert_envelope_success(response)
    replaced = response.headers["X-Request-Id"]
    assert replaced != sent and REQUEST_ID_RE.match(replaced)
    assert response.get_json()["request_id"] == replaced


@pytest.mark.parametrize("sent", ["abc\n", "abc\r\n", "\nabc"])
def test_request_id_with_a_line_break_is_replaced(client, catalog, sent):
    # Not sendable through a conforming client; set straight in the WSGI environ.
    response = client.get(PING, environ_overrides={"HTTP_X_REQUEST_ID": sent})
    assert_envelope_failure(response, 401, "missing_credentials")
    replaced = response.headers["X-Request-Id"]
    assert replaced != sent and REQUEST_ID_RE.match(replaced)


def test_generated_request_ids_differ(client, catalog):
    first, second = client.get(PING), client.get(PING)
    assert first.headers["X-Request-Id"] != second.headers["X-Request-Id"]


def test_every_response_has_a_request_id(client, probe_client, catalog, issue):
    key = issue("pull")
    responses = [
        client.get(PING, headers=bearer(key.token)),                       # 200
        client.get(PING),                                                  # 401
        client.get(f"{API}/mapping/hotels", headers=bearer(issue("none").token)),  # 403
        client.get(f"{API}/nope"),                                         # 404
        client.delete(PING),                                               # 405
        client.post(SEARCH, data="x", content_type="text/plain",
                    headers=bearer(key.token)),                            # 415
        client.post(SEARCH, data="{bad", content_type="application/json",
                    headers=bearer(key.token)),                            # 400
        client.post(SEARCH, json=SEARCH_BODY, headers=bearer(key.token)),  # the operation
        probe_client.get(f"{PROBE}/boom", headers=bearer(key.token)),      # 500
        client.get("/healthz"), client.get("/readyz"),
        client.get(f"{API}/openapi.json"), client.get(f"{API}/docs"),
    ]
    for response in responses:
        request_id = response.headers.get("X-Request-Id")
        assert request_id and REQUEST_ID_RE.match(request_id), (response.status, response.headers)
        if response.mimetype == "application/json" and "request_id" in (response.get_json() or {}):
            assert response.get_json()["request_id"] == request_id
    assert {200, 400, 401, 403, 404, 405, 415, 500} <= {r.status_code for r in responses}


# --- body size -----------------------------------------------------------------------------------

def test_body_over_the_cap_is_payload_too_large(client, catalog, issue, settings):
    key = issue("pull")
    body = b'{"pad": "' + b"x" * settings.max_body_bytes + b'"}'
    assert len(body) > settings.max_body_bytes
    response = client.post(SEARCH, data=body, content_type="application/json",
                           headers=bearer(key.token))
    assert_envelope_failure(response, 413, "payload_too_large")


@pytest.mark.parametrize("with_key", [True, False])
def test_declared_length_over_the_cap_is_refused_before_reading(client, catalog, issue, settings,
                                                                with_key):
    headers = bearer(issue("pull").token) if with_key else {}
    response = client.post(SEARCH, data=b"{}", content_type="application/json", headers=headers,
                           environ_overrides={"CONTENT_LENGTH": str(settings.max_body_bytes + 1)})
    assert_envelope_failure(response, 413, "payload_too_large")


def test_body_of_exactly_the_cap_is_accepted(client, catalog, issue, settings):
    key = issue("pull")
    head, tail = b'{"pad": "', b'"}'
    body = head + b"x" * (settings.max_body_bytes - len(head) - len(tail)) + tail
    assert len(body) == settings.max_body_bytes
    response = client.post(SEARCH, data=body, content_type="application/json",
                           headers=bearer(key.token))
    assert_passed_the_guards(response)


@pytest.mark.parametrize("method,path,status,code", [
    ("POST", f"{API}/nope", 404, "not_found"),
    ("POST", f"{API}/bookings/bad$ref/cancel", 404, "not_found"),
    ("DELETE", PING, 405, "method_not_allowed"),
    ("POST", PING, 405, "method_not_allowed"),
])
def test_routing_comes_before_the_body_cap(client, catalog, settings, method, path, status, code):
    response = client.open(path, method=method, data=b"{}", content_type="application/json",
                           environ_overrides={"CONTENT_LENGTH": str(settings.max_body_bytes + 1)})
    assert_envelope_failure(response, status, code)


# --- media type and JSON syntax ------------------------------------------------------------------

@pytest.mark.parametrize("content_type,body", [
    ("text/plain", b'{"hotel_codes": ["ACME-LIS"]}'),
    ("text/plain", b"hello"),
    ("application/x-www-form-urlencoded", b"hotel_codes=ACME-LIS"),
    ("application/xml", b"<search/>"),
    (None, b'{"hotel_codes": ["ACME-LIS"]}'),
])
def test_non_json_body_is_unsupported_media_type(client, catalog, issue, content_type, body):
    key = issue("pull")
    kwargs = {"content_type": content_type} if content_type else {}
    response = client.post(SEARCH, data=body, headers=bearer(key.token), **kwargs)
    assert_envelope_failure(response, 415, "unsupported_media_type")


def test_put_with_non_json_body_is_unsupported_media_type(client, catalog, issue):
    key = issue("push", signed=False)
    response = client.put(f"{API}/ari", data=b"hotel_code=ACME-LIS", content_type="text/plain",
                          headers=bearer(key.token))
    assert_envelope_failure(response, 415, "unsupported_media_type")


@pytest.mark.parametrize("body", [b"{bad json", b"NaN", b'{"rooms": NaN}', b"Infinity",
                                  b'{"a": -Infinity}', b"[1,]", b'{"a": 1', b"\xff\xfe{}",
                                  b'{"a": 1} trailing'])
def test_malformed_json_is_malformed_json(client, catalog, issue, body):
    key = issue("pull")
    response = client.post(SEARCH, data=body, content_type="application/json",
                           headers=bearer(key.token))
    assert_envelope_failure(response, 400, "malformed_json")


def test_json_with_charset_parameter_is_accepted(client, catalog, issue):
    key = issue("pull")
    response = client.post(SEARCH, data=json.dumps(SEARCH_BODY),
                           content_type="application/json; charset=utf-8",
                           headers=bearer(key.token))
    assert_passed_the_guards(response)


def test_signed_malformed_json_is_malformed_json(client, catalog, issue):
    key = issue("pull", signed=True)
    body = b"{bad json"
    response = client.post(SEARCH, data=body, content_type="application/json",
                           headers=signed_headers(key.token, "POST", SEARCH, body))
    assert_envelope_failure(response, 400, "malformed_json")


# --- validation paths (422) on a probe route with a nested schema --------------------------------

def test_probe_route_accepts_a_valid_body(probe_client, catalog, issue):
    key = issue("none")
    body = {"name": "ok", "items": [{"adults": 2, "child_ages": [3]}]}
    response = probe_client.post(f"{PROBE}/echo", json=body, headers=bearer(key.token))
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json()["data"] == body


def test_validation_failed_lists_every_failing_dotted_path(probe_client, catalog, issue):
    key = issue("none")
    body = {"name": "x" * 11,
            "items": [{"adults": 1}, {"adults": 0}, {"child_ages": [3, 40]}, {"adults": "2"}],
            "bogus": True}
    response = probe_client.post(f"{PROBE}/echo", json=body, headers=bearer(key.token))
    error = assert_envelope_failure(response, 422, "validation_failed")
    fields_ = error["details"]["fields"]
    expected = {"name", "items.1.adults", "items.2.adults", "items.2.child_ages.1",
                "items.3.adults", "bogus"}
    assert set(fields_) == expected, fields_
    for path, messages in fields_.items():
        assert isinstance(messages, list) and messages and all(
            isinstance(m, str) and m for m in messages), (path, messages)
    assert "items.0.adults" not in fields_


def test_validation_failed_for_missing_required_fields(probe_client, catalog, issue):
    key = issue("none")
    response = probe_client.post(f"{PROBE}/echo", json={}, headers=bearer(key.token))
    error = assert_envelope_failure(response, 422, "validation_failed")
    assert set(error["details"]["fields"]) == {"name", "items"}


def test_validation_failed_for_a_body_that_is_not_an_object(probe_client, catalog, issue):
    key = issue("none")
    response = probe_client.post(f"{PROBE}/echo", json=[1, 2], headers=bearer(key.token))
    error = assert_envelope_failure(response, 422, "validation_failed")
    assert error["details"]["fields"]


def test_probe_route_keeps_the_guards(probe_client, catalog, issue):
    assert_envelope_failure(probe_client.post(f"{PROBE}/echo", json={}), 401,
                            "missing_credentials")
    key = issue("none")
    response = probe_client.post(f"{PROBE}/echo", data=b"{bad", content_type="application/json",
                                 headers=bearer(key.token))
    assert_envelope_failure(response, 400, "malformed_json")


# --- unexpected failures (500) -------------------------------------------------------------------

def test_unexpected_exception_is_internal_error_with_empty_details(probe_client, catalog, issue):
    key = issue("none")
    response = probe_client.get(f"{PROBE}/boom", headers=bearer(key.token))
    error = assert_envelope_failure(response, 500, "internal_error")
    raw = response.get_data(as_text=True)
    for leak in ("Traceback", "kaboom", "RuntimeError", "SELECT", "secret_hash", 'File "',
                 "test_wire.py"):
        assert leak not in raw, raw
    assert error["details"] == {}


# --- unreachable backing services (503) ----------------------------------------------------------

def test_unreachable_database_is_service_unavailable(make_app):
    broken = make_app(database_url="postgresql://postgres@127.0.0.1:1/none",
                      db_pool_timeout_seconds=1).test_client()
    response = broken.get(PING, headers=bearer(ANY_TOKEN))
    assert_envelope_failure(response, 503, "service_unavailable")
    assert re.fullmatch(r"\d+", response.headers.get("Retry-After", "")), response.headers
    assert int(response.headers["Retry-After"]) >= 1
    raw = response.get_data(as_text=True)
    assert "127.0.0.1" not in raw and "postgresql://" not in raw

    response = broken.get("/readyz")
    assert_envelope_failure(response, 503, "service_unavailable")
    assert int(response.headers["Retry-After"]) >= 1
    assert_envelope_success(broken.get("/healthz"))


def test_key_reads_survive_connections_broken_since_their_last_use(make_app, catalog, issue):
    """Key reads skip the pool's ping before each use: a connection the server dropped (a
    restart, an idle timeout) is found by the read itself and the read is tried again, on as
    many connections as the pool holds."""
    # No key cache: every request below must read its key.
    application = make_app(key_cache_ttl_seconds=0)
    fresh = application.test_client()
    key = issue("pull")
    assert_envelope_success(fresh.get(PING, headers=bearer(key.token)))
    # The pool now holds at least three, all broken.
    end_idle_sessions(services_of(application).guards.keys.pool,
                      services_of(application).settings.database_url, 3)
    for _ in range(3):
        assert_envelope_success(fresh.get(PING, headers=bearer(key.token)))


def test_unreachable_redis_keeps_a_per_process_limit(make_app, catalog, issue):
    """Without Redis the limit is kept per process rather than not at all (bearer keys; signed
    ones fail closed, below)."""
    broken = make_app(redis_url="redis://127.0.0.1:1/0").test_client()
    key = issue("pull", rate_limit=2)
    for remaining in (1, 0):
        response = broken.get(PING, headers=bearer(key.token))
        assert_envelope_success(response)
        assert response.headers["RateLimit"] == f'"default";r={remaining};t=' + (
            "0" if remaining else response.headers["RateLimit"].rsplit("=", 1)[1])
        assert response.headers["RateLimit-Policy"] == '"default";q=2;w=60'
    response = broken.get(PING, headers=bearer(key.token))
    assert_envelope_failure(response, 429, "rate_limited")
    assert int(response.headers["Retry-After"]) >= 1


def test_unreachable_redis_fails_signed_requests_closed(make_app, catalog, issue):
    broken = make_app(redis_url="redis://127.0.0.1:1/0").test_client()
    key = issue("push")
    response = broken.get(PING, headers=signed_headers(key.token, "GET", PING))
    assert_envelope_failure(response, 503, "service_unavailable")
    assert int(response.headers["Retry-After"]) >= 1
    response = broken.get("/readyz")
    assert_envelope_failure(response, 503, "service_unavailable")


# --- health and the published description --------------------------------------------------------

def test_health_endpoints(client, catalog):
    data = assert_envelope_success(client.get("/healthz"))
    assert data["status"] == "ok"
    data = assert_envelope_success(client.get("/readyz"))
    assert data["status"] == "ready"


SPEC_SUMMARY = [
    ("GET", "/ping"), ("GET", "/whoami"), ("GET", "/mapping/hotels"),
    ("GET", "/mapping/hotels/{hotelCode}"), ("POST", "/availability/search"),
    ("POST", "/availability/rates"), ("POST", "/bookings/quote"), ("POST", "/bookings"),
    ("GET", "/bookings/{reference}"), ("POST", "/bookings/{reference}/cancel"),
    ("PUT", "/ari"), ("PUT", "/ari/restrictions"), ("GET", "/ari/batches/{batchId}"),
    ("POST", "/reservations"), ("POST", "/reservations/{reference}/cancel"),
    ("POST", "/reservations/{reference}/modify"),
]


def _template(path: str) -> str:
    # Path parameter names are not on the wire: /x/{hotelCode} and /x/{hotel_code} are one path.
    return re.sub(r"\{[^}]+\}", "{}", path)


def test_openapi_describes_every_endpoint_of_the_specification(client):
    response = client.get(f"{API}/openapi.json")
    assert response.status_code == 200
    document = response.get_json()
    assert document["openapi"].startswith("3.")
    published = {_template(path): ops for path, ops in document["paths"].items()}
    for method, path in SPEC_SUMMARY:
        ops = published.get(_template(API + path))
        assert ops is not None, f"{path} missing from {sorted(document['paths'])}"
        assert method.lower() in ops, (method, path, sorted(ops))


def test_the_description_lists_details_in_every_error_and_the_answers_carry_it(client):
    # partners.md, errors.md and the description say `details` is always there (issue 36).
    schema = client.get(f"{API}/openapi.json").get_json()["components"]["schemas"]["Error"]
    assert "details" in schema["required"]
    for response in (client.get(f"{API}/nowhere"), client.get(PING)):
        assert response.get_json()["error"]["details"] == {}, response.get_json()


def test_docs_page_is_served(client):
    response = client.get(f"{API}/docs")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    assert b"<html" in response.data.lower()


def test_schemas_load_the_body_parsed_by_the_wire_rules(app):
    """The body is parsed once: API blueprints read what parse_json_body kept in g."""
    from flask import g, request

    from connectivity.web.api import PreParsedJsonParser
    with app.test_request_context("/x", method="POST", data=b'{"a": 1}',
                                  content_type="application/json"):
        assert PreParsedJsonParser().load_json(request, None) == {"a": 1}
        g.json_body = {"kept": True}
        assert PreParsedJsonParser().load_json(request, None) == {"kept": True}
