"""Fuzzing from the published description (issue 7, item 1): schemathesis generates requests
for every operation of the OpenAPI description the service serves, valid and invalid, sent as
acme's pull key (bearer) and as its signed push key, against the demo catalogue.

Every response must: not be a 5xx; have a status the operation lists explicitly (the `default`
response does not count); match the schema and content type documented for that status; and an
invalid request must be refused with a 4xx. Bounded and reproducible: a fixed example count per
operation and a derandomized (fixed-seed) Hypothesis run; the tally is printed at the end."""

from __future__ import annotations

import collections
import datetime as dt

import hypothesis
import pytest
import schemathesis
from schemathesis import checks as builtin_checks
from schemathesis.openapi import checks as openapi_checks  # noqa: F401 - registers the checks
from schemathesis.specs.openapi import checks as spec_checks

from app import create_app
from connectivity.settings import Settings
from tests.api.signing import bearer

from .conftest import DESCRIPTION_PATH, SigningMiddleware

# Each operation is fuzzed in full with the key made for it (pull: handshake, mapping,
# availability, bookings; push: handshake, ARI, reservations): MAX_EXAMPLES generated cases
# plus schemathesis's coverage cases (boundaries, wrong types, NUL bytes, huge integers,
# unexpected methods). With the other key it only has to be refused as documented (403): a few
# generated cases, no coverage phase. Together about a minute on a 2-core machine.
MAX_EXAMPLES = 25
OTHER_KEY_EXAMPLES = 4
SEED = 20261121

# The description comes from an application built only to serve it (building one does no I/O):
# the schema is loaded when this module is imported, before any fixture has a database. The
# requests go to the test application (`app=` in each call).
_DESCRIBED = create_app(Settings(database_url="postgresql://unused@127.0.0.1:1/unused",
                                 redis_url="redis://127.0.0.1:1/0", secret_key="d" * 40))
own = schemathesis.openapi.from_wsgi(DESCRIPTION_PATH, _DESCRIBED)
other = schemathesis.openapi.from_dict(own.raw_schema)
for loaded, examples in ((own, MAX_EXAMPLES), (other, OTHER_KEY_EXAMPLES)):
    loaded.config.generation.update(
        modes=["positive", "negative"], max_examples=examples, deterministic=True,
        allow_x00=True,
        # The keys' credentials are the test's own (bearer, or signed per request): generated
        # X-Api-Key-Id / Authorization values would only be refused as 401 before any real
        # code runs.
        with_security_parameters=False)
    # Reproducible: what is generated must not depend on earlier responses (schemathesis
    # otherwise feeds values from responses and 4xx messages back into generation).
    for phase in (loaded.config.phases.fuzzing, loaded.config.phases.coverage,
                  loaded.config.phases.examples):
        phase.extra_data_sources.responses = False
    loaded.config.phases.fuzzing.error_feedback.is_enabled = False
other.config.phases.coverage.enabled = False

PULL_AREAS = r"/api/connectivity/v1/(ping|whoami|mapping|availability|bookings)"
PUSH_AREAS = r"/api/connectivity/v1/(ping|whoami|ari|reservations)"
with_pull_key = own.include(path_regex=PULL_AREAS)
with_push_key = own.include(path_regex=PUSH_AREAS)
pull_key_on_push_side = other.include(path_regex=r"/api/connectivity/v1/(ari|reservations)")
push_key_on_pull_side = other.include(
    path_regex=r"/api/connectivity/v1/(mapping|availability|bookings)")

TALLY: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
RUNS: collections.Counter = collections.Counter()

# Random codes and dates reach no further than a 404 or a 422: every other valid case is steered
# onto the demo catalogue (acme's codes, stays a few days ahead) so that pricing, booking, ARI
# and reservation code runs too. Only valid (positive) cases are steered, with valid values, so
# a case stays what it was generated as.
CODES = {"hotel_code": "ACME-LIS", "hotelCode": "ACME-LIS", "room_type_code": "ACME-DBL",
         "rate_plan_code": "ACME-BAR", "nationality": "PT", "currency": "EUR",
         "net_currency": "EUR", "sell_currency": "EUR", "penalty_currency": "EUR"}
START = dt.date.today() + dt.timedelta(days=5)


def _date(value):
    try:
        return dt.date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def steer(value):
    if isinstance(value, list):
        return [steer(item) for item in value]
    if not isinstance(value, dict):
        return value
    steered = {k: CODES[k] if k in CODES and isinstance(v, str) else steer(v)
               for k, v in value.items()}
    if isinstance(steered.get("rooms"), int) and isinstance(steered.get("occupancy"), list):
        steered["occupancy"] = steered["occupancy"][:1]  # one entry applies to every room
    if isinstance(steered.get("hotel_codes"), list) and steered["hotel_codes"]:
        steered["hotel_codes"] = ["ACME-LIS", *steered["hotel_codes"][1:]]
    for first, last in (("check_in", "check_out"), ("from_date", "to_date")):
        start, end = _date(steered.get(first)), _date(steered.get(last))
        if start and end:
            nights = min(max((end - start).days, 1), 14)  # a stay of at least one night
            steered[first] = START.isoformat()
            steered[last] = (START + dt.timedelta(days=nights)).isoformat()
    if _date(steered.get("date")):
        steered["date"] = START.isoformat()
    return steered


def steer_case(case) -> bool:
    """Steer every other valid case onto the catalogue; whether it was."""
    meta = case.meta
    if meta is None or meta.generation.mode != "positive":
        return False
    RUNS[f"{case.method} {case.path}"] += 1
    if RUNS[f"{case.method} {case.path}"] % 2:
        return False
    if isinstance(case.body, (dict, list)):
        case.body = steer(case.body)
    if case.path_parameters:
        case.path_parameters = steer(case.path_parameters)
    return True


def documented_status(ctx, response, case):
    """The status is one the operation lists, not only covered by its `default` response.
    (A request with another method is not the operation's: `unsupported_method` judges it.)"""
    if case.method.upper() != case.operation.method.upper():
        return None
    listed = {str(s) for s in case.operation.definition.raw.get("responses", {})} - {"default"}
    if str(response.status_code) not in listed:
        raise AssertionError(
            f"{case.method} {case.path}: status {response.status_code} is not documented "
            f"(documented: {sorted(listed)}); body {response.text[:300]}")
    return None


CHECKS = [
    builtin_checks.not_a_server_error,
    spec_checks.status_code_conformance,
    spec_checks.content_type_conformance,
    spec_checks.response_schema_conformance,
    spec_checks.response_headers_conformance,
    spec_checks.negative_data_rejection,
    spec_checks.unsupported_method,
]


SETTINGS = hypothesis.settings(max_examples=MAX_EXAMPLES, derandomize=True, database=None,
                              deadline=None, suppress_health_check=list(hypothesis.HealthCheck))


@with_pull_key.parametrize()
@SETTINGS
@hypothesis.seed(SEED)
def test_pull_side_as_the_pull_key(case, app, keys):
    run(case, "pull", app, keys)


@with_push_key.parametrize()
@SETTINGS
@hypothesis.seed(SEED)
def test_push_side_as_the_signed_push_key(case, app, keys):
    run(case, "push", app, keys)


@pull_key_on_push_side.parametrize()
@hypothesis.settings(SETTINGS, max_examples=OTHER_KEY_EXAMPLES)
@hypothesis.seed(SEED)
def test_push_side_refuses_the_pull_key(case, app, keys):
    run(case, "pull", app, keys)


@push_key_on_pull_side.parametrize()
@hypothesis.settings(SETTINGS, max_examples=OTHER_KEY_EXAMPLES)
@hypothesis.seed(SEED)
def test_pull_side_refuses_the_push_key(case, app, keys):
    run(case, "push", app, keys)


def run(case, as_key: str, app, keys) -> None:
    if as_key == "pull":
        target, headers = app, bearer(keys["pull"].token)
    else:
        target, headers = SigningMiddleware(app, keys["push"].token), None
    steered = steer_case(case)
    response = case.call_and_validate(app=target, headers=headers, checks=CHECKS,
                                      additional_checks=[documented_status])
    label = f"{as_key} {case.operation.method.upper()} {case.path}"
    TALLY[label]["other methods" if case.method.upper() != case.operation.method.upper()
                 else response.status_code] += 1
    if steered:
        TALLY[label]["steered"] += 1
