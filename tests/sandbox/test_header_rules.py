"""The header's own rules (contract 11.4): sandbox keys only, a value the operation honours,
checked after authentication, rate limit, scope and the field rules; the faults on every guarded
operation but /ping and /whoami; and each operation's values in the OpenAPI description."""

from __future__ import annotations

import pytest

from connectivity import API_PREFIX
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.web.forced_outcomes import EXTENSION as FORCED_OUTCOMES
from tests.support.envelope import assert_envelope_failure, assert_envelope_success

from tests.sandbox.conftest import API, HEADER, PRODUCTION, scenario, search_body

FAULTS = ["rate_limited", "service_unavailable", "internal_error"]
# Contract 11.4's table, per operation; every other operation honours the faults.
HONOURED = {
    ("get", "/ping"): [],
    ("get", "/whoami"): [],
    ("post", "/availability/search"): ["sold_out", *FAULTS],
    ("post", "/availability/rates"): ["sold_out", *FAULTS],
    ("post", "/bookings/quote"): ["sold_out", "price_changed", *FAULTS],
    ("post", "/bookings"): ["sold_out", "price_changed", "quote_expired", *FAULTS],
    ("post", "/bookings/{reference}/cancel"): ["penalty_exceeds_expectation", *FAULTS],
    ("put", "/ari"): [*FAULTS, "partially_applied", "delayed_apply"],
    ("put", "/ari/restrictions"): [*FAULTS, "partially_applied", "delayed_apply"],
    ("get", "/ari/batches/{batchId}"): FAULTS,
}

@pytest.mark.parametrize("path", ["/mapping/hotels", "/mapping/hotels/ACME-LIS",
                                  "/bookings/NOT-THERE"])
def test_the_faults_on_reads(client, pull, path):
    response = client.get(f"{API}{path}", headers=scenario(pull, "rate_limited"))
    assert_envelope_failure(response, 429, "rate_limited")
    assert response.headers["Retry-After"] == "1"
    response = client.get(f"{API}{path}", headers=scenario(pull, "service_unavailable"))
    assert_envelope_failure(response, 503, "service_unavailable")
    assert response.headers["Retry-After"] == "1"
    assert_envelope_failure(client.get(f"{API}{path}", headers=scenario(pull, "internal_error")),
                            500, "internal_error")


def test_a_forced_429_counts_against_the_quota(client, issue, demo):
    headers = {"Authorization": f"Bearer {issue('pull', rate_limit=3).token}"}
    for _ in range(2):
        assert_envelope_failure(client.get(f"{API}/mapping/hotels",
                                           headers=scenario(headers, "rate_limited")),
                                429, "rate_limited")
    assert_envelope_success(client.get(f"{API}/mapping/hotels", headers=headers))
    # The third request used the last of the three: a fourth is refused for real.
    real = client.get(f"{API}/mapping/hotels", headers=headers)
    error = assert_envelope_failure(real, 429, "rate_limited")
    assert "X-Sandbox-Scenario" not in error["message"]


@pytest.mark.parametrize("value", ["nonsense", "", "SOLD_OUT", "quote_expired", "delayed_apply"])
def test_a_value_the_operation_does_not_honour_is_422_naming_the_header(client, pull, value):
    error = assert_envelope_failure(client.post(
        f"{API}/availability/search", headers=scenario(pull, value), json=search_body()),
        422, "validation_failed")
    assert list(error["details"]["fields"]) == [HEADER]
    assert "sold_out" in error["details"]["fields"][HEADER][0]


@pytest.mark.parametrize("path", ["/ping", "/whoami"])
@pytest.mark.parametrize("value", ["rate_limited", "internal_error", "sold_out"])
def test_ping_and_whoami_honour_no_scenario(client, pull, path, value):
    error = assert_envelope_failure(client.get(f"{API}{path}", headers=scenario(pull, value)),
                                    422, "validation_failed")
    assert list(error["details"]["fields"]) == [HEADER]
    assert_envelope_success(client.get(f"{API}{path}", headers=pull))


@pytest.mark.parametrize("value", ["sold_out", "internal_error", "nonsense"])
def test_a_production_key_gets_sandbox_only_whatever_the_value(client, db, issue, demo, value):
    db.run(load_catalog, parse_catalog(PRODUCTION))
    live = {"Authorization": f"Bearer {issue('pull', environment='production').token}"}
    for path in ("/ping", "/mapping/hotels"):
        error = assert_envelope_failure(client.get(f"{API}{path}",
                                                   headers=scenario(live, value)),
                                        403, "sandbox_only")
        assert HEADER in error["message"]
    assert_envelope_success(client.get(f"{API}/mapping/hotels", headers=live))


def test_every_earlier_check_comes_first(client, issue, pull):
    # authentication
    assert_envelope_failure(client.get(f"{API}/mapping/hotels",
                                       headers={HEADER: "internal_error"}),
                            401, "missing_credentials")
    # scope: a push key cannot search, scenario or not
    push = {"Authorization": f"Bearer {issue('push', signed=False).token}"}
    assert_envelope_failure(client.post(f"{API}/availability/search",
                                        headers=scenario(push, "sold_out"), json=search_body()),
                            403, "insufficient_scope")
    # the field rules: the body's errors, not the scenario
    error = assert_envelope_failure(client.post(
        f"{API}/availability/search", headers=scenario(pull, "internal_error"),
        json=search_body(rooms=0)), 422, "validation_failed")
    assert "rooms" in error["details"]["fields"]
    # the media type
    assert_envelope_failure(client.post(
        f"{API}/bookings/quote", headers=scenario(pull, "sold_out"), data="x",
        content_type="text/plain"), 415, "unsupported_media_type")


def test_a_bad_body_and_a_bad_header_are_named_together(client, pull):
    error = assert_envelope_failure(client.post(
        f"{API}/availability/search", headers=scenario(pull, "nonsense"),
        json=search_body(rooms=0)), 422, "validation_failed")
    assert set(error["details"]["fields"]) == {"rooms", HEADER}
    # a header the operation honours is not a failing field
    error = assert_envelope_failure(client.post(
        f"{API}/availability/search", headers=scenario(pull, "sold_out"),
        json=search_body(rooms=0)), 422, "validation_failed")
    assert set(error["details"]["fields"]) == {"rooms"}


def test_every_guarded_operation_but_ping_and_whoami_honours_the_faults(app):
    scenarios = app.extensions[FORCED_OUTCOMES]
    checked = 0
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        if not rule.rule.startswith(API_PREFIX) or not hasattr(view, "access_policy"):
            continue
        honoured = scenarios.honoured(rule.endpoint)
        if rule.rule in (f"{API_PREFIX}/ping", f"{API_PREFIX}/whoami"):
            assert honoured == (), rule.rule
        else:
            assert set(FAULTS) <= set(honoured), rule.rule
        checked += 1
    assert checked >= 15


def test_each_operation_lists_its_values_in_the_description(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    seen = 0
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            [header] = [p for p in operation["parameters"] if p["name"] == HEADER]
            assert header["in"] == "header" and not header["required"]
            values = header["schema"].get("enum", [])
            for value in values:
                assert f"`{value}`" in header["description"]
            assert "422" in operation["responses"] and "403" in operation["responses"]
            if "internal_error" in values:
                assert "500" in operation["responses"]
            key = (method, path.removeprefix(API))
            if key in HONOURED:
                assert values == HONOURED[key], key
                seen += 1
            else:
                assert set(FAULTS) <= set(values), key
    assert seen == len(HONOURED)
