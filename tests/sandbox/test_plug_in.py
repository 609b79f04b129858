"""The sandbox as a plug-in of the forced outcomes (web/forced_outcomes.py): the app registers
it, its table names guarded operations and catalogued scenarios only, and a service without it
still answers. Without the plug-in the header forces nothing: every operation answers as if it
were not sent (no forced answer, no 422 naming it, no 403 `sandbox_only`)."""

from __future__ import annotations

import psycopg
import pytest

from connectivity.auth.access import policy_of
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.sandbox.operations import OPERATIONS
from connectivity.sandbox.scenarios import SandboxScenarios
from connectivity.web.forced_outcomes import EXTENSION as FORCED_OUTCOMES
from tests.support.envelope import assert_envelope_failure, assert_envelope_success

from tests.sandbox.conftest import API, PRODUCTION, quote_body, scenario, search_body, stay


def test_the_app_registers_the_sandbox(app):
    assert isinstance(app.extensions[FORCED_OUTCOMES], SandboxScenarios)


def test_the_table_names_guarded_operations(app):
    for endpoint in OPERATIONS:
        assert policy_of(endpoint, app) is not None, endpoint


def test_a_scenario_not_in_the_catalogue_is_refused(app):
    with pytest.raises(ValueError, match="sold_outt"):
        SandboxScenarios(app, {"availability.search": {"sold_outt": None}})


@pytest.fixture
def bare(make_app, db):
    """A client of an app without the sandbox plug-in."""
    application = make_app()
    del application.extensions[FORCED_OUTCOMES]
    return application.test_client()


@pytest.mark.parametrize("value", ["sold_out", "internal_error", "nonsense"])
def test_without_the_plug_in_the_header_forces_nothing(bare, pull, value):
    found = assert_envelope_success(bare.post(f"{API}/availability/search",
                                              headers=scenario(pull, value),
                                              json=search_body()))
    assert [h["available"] for h in found["hotels"]] == [True]
    assert_envelope_success(bare.post(f"{API}/bookings/quote", headers=scenario(pull, value),
                                      json=quote_body()))
    assert_envelope_success(bare.get(f"{API}/ping", headers=scenario(pull, value)))
    # the body's failing fields only
    error = assert_envelope_failure(bare.post(
        f"{API}/availability/search", headers=scenario(pull, value),
        json=search_body(rooms=0)), 422, "validation_failed")
    assert set(error["details"]["fields"]) == {"rooms"}


def test_without_the_plug_in_a_production_key_is_served(bare, db, issue, demo):
    db.run(load_catalog, parse_catalog(PRODUCTION))
    live = {"Authorization": f"Bearer {issue('pull', environment='production').token}"}
    assert_envelope_success(bare.get(f"{API}/mapping/hotels",
                                     headers=scenario(live, "internal_error")))


def test_without_the_plug_in_a_push_stores_no_scenario(bare, issue, catalog, services):
    push = {"Authorization": f"Bearer {issue('push', signed=False).token}"}
    item = {"room_type_code": "ACME-DBL", "date": stay()["check_in"], "availability": 6}
    assert_envelope_success(bare.put(f"{API}/ari", headers=scenario(push, "partially_applied"),
                                     json={"hotel_code": "ACME-LIS", "items": [item]}), 202)
    with psycopg.connect(services.database_url) as conn:
        assert conn.execute("SELECT sandbox_scenario FROM ari_batches").fetchall() == [(None,)]
