"""Contract section 3 (scopes, mapped properties) over every endpoint of the specification's
summary table, and routing before authentication (contract 10)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog

from tests.support.envelope import (API, assert_envelope_failure, assert_envelope_success,
                      assert_passed_the_guards)
from tests.support.signing import bearer

# Exactly the specification's scope names (not imported from the application).
ALL_SCOPES = ("ari.read", "content.read", "booking.quote", "booking.write", "booking.read",
              "booking.cancel", "ari.write", "restriction.write", "reservation.write",
              "reservation.cancel")


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str                      # with a valid sample hotel code / reference / batch id
    scopes: tuple[str, ...]        # what it needs (all of them, unless any_of)
    any_of: bool = False

    @property
    def id(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def has_body(self) -> bool:
        return self.method in ("POST", "PUT")


BATCH_ID = "3f2b6c1e-9a4d-4e1b-8c7a-0d5e6f7a8b9c"
# The summary table of partner-connectivity-service.md, minus /ping and /whoami (no scope).
ENDPOINTS = [
    Endpoint("GET", "/mapping/hotels", ("content.read",)),
    Endpoint("GET", "/mapping/hotels/ACME-LIS", ("content.read",)),
    Endpoint("POST", "/availability/search", ("ari.read",)),
    Endpoint("POST", "/availability/rates", ("ari.read",)),
    Endpoint("POST", "/bookings/quote", ("booking.quote",)),
    Endpoint("POST", "/bookings", ("booking.write", "booking.quote")),
    Endpoint("GET", "/bookings/ACME-BKG-0001", ("booking.read",)),
    Endpoint("POST", "/bookings/ACME-BKG-0001/cancel", ("booking.cancel",)),
    Endpoint("PUT", "/ari", ("ari.write",)),
    Endpoint("PUT", "/ari/restrictions", ("restriction.write",)),
    Endpoint("GET", f"/ari/batches/{BATCH_ID}", ("ari.write", "restriction.write"), any_of=True),
    Endpoint("POST", "/reservations", ("reservation.write",)),
    Endpoint("POST", "/reservations/CM-RES.42_a/cancel", ("reservation.cancel",)),
    Endpoint("POST", "/reservations/CM-RES.42_a/modify", ("reservation.write",)),
]
IDS = [e.id for e in ENDPOINTS]


def call(client, endpoint: Endpoint, headers=None, path: str | None = None):
    kwargs = {"headers": headers or {}}
    if endpoint.has_body:
        kwargs["json"] = {}
    return client.open(API + (path or endpoint.path), method=endpoint.method, **kwargs)


def assert_rate_limit_headers(response):
    # Authenticated responses carry the rate-limit headers (contract 5).
    assert response.headers.get("RateLimit-Policy", "").startswith('"default";q='), response.headers
    assert response.headers.get("RateLimit", "").startswith('"default";r='), response.headers


BARE_PARTNER_CATALOG = json.dumps({"partners": [{"code": "bare", "name": "Bare Partner"}]})


@pytest.fixture
def bare_partner(db):
    """A partner with no mapping at all."""
    db.run(load_catalog, parse_catalog(BARE_PARTNER_CATALOG))
    return "bare"


# --- insufficient_scope -----------------------------------------------------------------------

@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=IDS)
def test_every_scope_but_the_needed_ones_is_insufficient_scope(client, catalog, issue, endpoint):
    held = [s for s in ALL_SCOPES if s not in endpoint.scopes]
    key = issue("none", extra_scopes=held)
    response = call(client, endpoint, bearer(key.token))
    error = assert_envelope_failure(response, 403, "insufficient_scope")
    assert set(error["details"]["required"]) == set(endpoint.scopes)
    assert len(error["details"]["required"]) == len(endpoint.scopes)
    assert sorted(error["details"]["held"]) == sorted(held)
    assert_rate_limit_headers(response)


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=IDS)
def test_no_scopes_at_all_is_insufficient_scope(client, catalog, issue, endpoint):
    key = issue("none")
    error = assert_envelope_failure(call(client, endpoint, bearer(key.token)), 403,
                                    "insufficient_scope")
    assert set(error["details"]["required"]) == set(endpoint.scopes)
    assert error["details"]["held"] == []


@pytest.mark.parametrize("missing", ["booking.write", "booking.quote"])
def test_post_bookings_needs_both_of_its_scopes(client, catalog, issue, missing):
    endpoint = next(e for e in ENDPOINTS if e.id == "POST /bookings")
    held = [s for s in ALL_SCOPES if s != missing]
    key = issue("none", extra_scopes=held)
    error = assert_envelope_failure(call(client, endpoint, bearer(key.token)), 403,
                                    "insufficient_scope")
    assert set(error["details"]["required"]) == {"booking.write", "booking.quote"}
    assert sorted(error["details"]["held"]) == sorted(held)


def test_push_preset_has_no_content_read(client, catalog, issue):
    key = issue("push", signed=False)
    for path in ("/mapping/hotels", "/mapping/hotels/ACME-LIS"):
        error = assert_envelope_failure(client.get(API + path, headers=bearer(key.token)), 403,
                                        "insufficient_scope")
        assert error["details"]["required"] == ["content.read"]


# --- the right scopes reach the (still stubbed) operation --------------------------------------

@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=IDS)
def test_needed_scopes_and_mapped_properties_reach_the_operation(client, catalog, issue,
                                                                 endpoint):
    key = issue("none", extra_scopes=endpoint.scopes)
    response = call(client, endpoint, bearer(key.token))
    assert_passed_the_guards(response)
    assert_rate_limit_headers(response)


@pytest.mark.parametrize("scope", ["ari.write", "restriction.write"])
def test_batch_read_accepts_either_push_scope(client, catalog, issue, scope):
    endpoint = next(e for e in ENDPOINTS if e.path.startswith("/ari/batches/"))
    key = issue("none", extra_scopes=[scope])
    assert_passed_the_guards(call(client, endpoint, bearer(key.token)))


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=IDS)
def test_presets_reach_their_endpoints(client, catalog, issue, endpoint):
    # pull and push cover every endpoint between them, push needing content.read for mapping
    if set(endpoint.scopes) <= {"ari.read", "content.read", "booking.quote", "booking.write",
                                "booking.read", "booking.cancel"}:
        key = issue("pull")
    else:
        key = issue("push", signed=False)
    assert_passed_the_guards(call(client, endpoint, bearer(key.token)))


# --- no_mapped_properties ------------------------------------------------------------------------

@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=IDS)
def test_no_mapped_property_in_the_keys_environment(client, catalog, issue, endpoint):
    # acme's properties are all sandbox: a production key of acme has none
    key = issue("none", environment="production", extra_scopes=endpoint.scopes)
    response = call(client, endpoint, bearer(key.token))
    assert_envelope_failure(response, 403, "no_mapped_properties")
    assert_rate_limit_headers(response)


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=IDS)
def test_partner_with_no_mappings_at_all(client, catalog, issue, bare_partner, endpoint):
    key = issue("none", partner=bare_partner, extra_scopes=ALL_SCOPES)
    assert_envelope_failure(call(client, endpoint, bearer(key.token)), 403,
                            "no_mapped_properties")


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=IDS)
def test_scope_is_checked_before_mapped_properties(client, catalog, issue, bare_partner,
                                                   endpoint):
    held = [s for s in ALL_SCOPES if s not in endpoint.scopes]
    production = issue("none", environment="production", extra_scopes=held)
    assert_envelope_failure(call(client, endpoint, bearer(production.token)), 403,
                            "insufficient_scope")
    bare = issue("none", partner=bare_partner)
    assert_envelope_failure(call(client, endpoint, bearer(bare.token)), 403, "insufficient_scope")


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=IDS)
def test_paused_mappings_still_count_as_mapped(client, catalog, issue, app, endpoint):
    with app.app_context():  # plain click groups: the test runner does not push the context
        runner = app.test_cli_runner()
        for prop in ("LIS1", "OPO1"):
            result = runner.invoke(args=["distribution", "pause", "--partner", "acme",
                                         "--property", prop])
            assert result.exit_code == 0, (result.output, result.exception)
    key = issue("none", extra_scopes=endpoint.scopes)
    assert_passed_the_guards(call(client, endpoint, bearer(key.token)))


@pytest.mark.parametrize("path", ["/ping", "/whoami"])
def test_handshake_needs_no_scope_and_no_mapped_property(client, catalog, issue, bare_partner,
                                                         path):
    for key in (issue("none"), issue("none", environment="production"),
                issue("none", partner=bare_partner)):
        assert_envelope_success(client.get(API + path, headers=bearer(key.token)))


def test_whoami_explains_a_no_mapped_properties_403(client, catalog, issue, bare_partner):
    key = issue("pull", partner=bare_partner)
    data = assert_envelope_success(client.get(f"{API}/whoami", headers=bearer(key.token)))
    assert data["mapped_properties"] == 0
    assert data["partner"] == {"code": "bare", "name": "Bare Partner"}


# --- routing comes before authentication ------------------------------------------------------

UNKNOWN_PATHS = [
    "/api/connectivity/v1/nope",
    # `/api/connectivity/v1` itself (and `/`) redirect to the docs page:
    # tests/web/docs_page/test_newcomer.py
    "/api/connectivity/v2/ping",
    "/api/connectivity/v1/mapping/hotels/ACME-LIS/rooms",
    "/api/connectivity/v1/ari/batches",
    "/api/connectivity/v1/bookings/ACME-1/refund",
    "/nope",
]


@pytest.mark.parametrize("path", UNKNOWN_PATHS)
def test_unknown_path_is_not_found_whatever_the_credentials(client, catalog, issue, path):
    assert_envelope_failure(client.get(path), 404, "not_found")
    assert_envelope_failure(client.post(path, json={}), 404, "not_found")
    assert_envelope_failure(client.get(path, headers={"Authorization": "Basic x"}), 404,
                            "not_found")
    key = issue("pull")
    assert_envelope_failure(client.get(path, headers=bearer(key.token)), 404, "not_found")


@pytest.mark.parametrize("endpoint", ENDPOINTS + [Endpoint("GET", "/ping", ()),
                                                  Endpoint("GET", "/whoami", ())],
                         ids=IDS + ["GET /ping", "GET /whoami"])
@pytest.mark.parametrize("wrong", ["DELETE", "PATCH"])
def test_wrong_method_is_method_not_allowed_whatever_the_credentials(client, catalog, issue,
                                                                     endpoint, wrong):
    response = client.open(API + endpoint.path, method=wrong)
    assert_envelope_failure(response, 405, "method_not_allowed")
    allowed = {m.strip() for m in response.headers.get("Allow", "").split(",")}
    assert endpoint.method in allowed, response.headers
    assert wrong not in allowed

    key = issue("pull")
    response = client.open(API + endpoint.path, method=wrong, headers=bearer(key.token))
    assert_envelope_failure(response, 405, "method_not_allowed")
    assert endpoint.method in response.headers.get("Allow", "")
    assert "RateLimit" not in response.headers  # never reached authentication


@pytest.mark.parametrize("method,path", [
    ("POST", "/ping"), ("PUT", "/whoami"), ("DELETE", "/ari"), ("POST", "/ari/restrictions"),
    ("GET", "/availability/search"), ("PUT", "/bookings"), ("GET", "/reservations"),
    ("GET", "/reservations/CM-1/cancel"), ("PUT", f"/ari/batches/{BATCH_ID}"),
])
def test_other_wrong_methods_are_method_not_allowed(client, catalog, method, path):
    response = client.open(API + path, method=method)
    assert_envelope_failure(response, 405, "method_not_allowed")
    assert response.headers.get("Allow")
    assert method not in {m.strip() for m in response.headers["Allow"].split(",")}


LONG_REFERENCE = "R" * 121
LONG_BATCH = "b" * 65
BAD_SEGMENTS = [
    ("GET", "/bookings/bad$ref"),
    ("GET", "/bookings/bad%24ref"),
    ("GET", "/bookings/bad ref"),
    ("GET", "/bookings/bad~ref"),
    ("GET", "/bookings/bad,ref"),
    ("GET", "/bookings/caf%C3%A9"),
    ("GET", f"/bookings/{LONG_REFERENCE}"),
    ("POST", "/bookings/bad$ref/cancel"),
    ("POST", f"/bookings/{LONG_REFERENCE}/cancel"),
    ("POST", "/reservations/bad$ref/cancel"),
    ("POST", f"/reservations/{LONG_REFERENCE}/cancel"),
    ("POST", "/reservations/bad$ref/modify"),
    ("POST", f"/reservations/{LONG_REFERENCE}/modify"),
    ("GET", "/ari/batches/bad_batch"),
    ("GET", "/ari/batches/bad.batch"),
    ("GET", f"/ari/batches/{LONG_BATCH}"),
    ("GET", f"/mapping/hotels/{'H' * 121}"),
]


@pytest.mark.parametrize("method,path", BAD_SEGMENTS, ids=[f"{m} {p[:40]}" for m, p in BAD_SEGMENTS])
def test_path_segment_outside_its_pattern_is_not_found(client, catalog, issue, method, path):
    kwargs = {"json": {}} if method == "POST" else {}
    assert_envelope_failure(client.open(API + path, method=method, **kwargs), 404, "not_found")
    key = issue("none", extra_scopes=ALL_SCOPES)
    response = client.open(API + path, method=method, headers=bearer(key.token), **kwargs)
    assert_envelope_failure(response, 404, "not_found")


@pytest.mark.parametrize("method,path,scope", [
    ("GET", "/bookings/" + "R" * 120, "booking.read"),
    ("GET", "/bookings/a", "booking.read"),
    ("GET", "/bookings/A-z_0.9", "booking.read"),
    ("POST", "/bookings/" + "R" * 120 + "/cancel", "booking.cancel"),
    ("POST", "/reservations/" + "R" * 120 + "/modify", "reservation.write"),
    ("GET", "/ari/batches/" + "b" * 64, "ari.write"),
    ("GET", "/ari/batches/A-1", "restriction.write"),
    ("GET", "/mapping/hotels/" + "H" * 120, "content.read"),
])
def test_path_segment_at_its_bounds_is_routed(client, catalog, issue, method, path, scope):
    kwargs = {"json": {}} if method == "POST" else {}
    assert_envelope_failure(client.open(API + path, method=method, **kwargs), 401,
                            "missing_credentials")
    key = issue("none", extra_scopes=[scope])
    response = client.open(API + path, method=method, headers=bearer(key.token), **kwargs)
    assert_passed_the_guards(response)
