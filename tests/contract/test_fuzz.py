"""Fuzzing from the published description (issue 7, item 1): schemathesis generates requests
for every operation of the OpenAPI description the service serves, valid and invalid, sent as
acme's pull key (bearer) and as its signed push key, against the demo catalogue.

Every response must: not be a 5xx; have a status the operation lists explicitly (the `default`
response does not count); match the schema and content type documented for that status; and an
invalid request must be refused with a 4xx. Bounded and reproducible: a fixed example count per
operation and a derandomized (fixed-seed) Hypothesis run; the tally is printed at the end."""

from __future__ import annotations

import collections

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

# Per operation and key: 16 operations x 2 keys x this many examples (plus schemathesis's
# explicit and coverage cases) stays near 60 s on a 2-core machine.
MAX_EXAMPLES = 25
SEED = 20261121

# The description comes from an application built only to serve it (building one does no I/O):
# the schema is loaded when this module is imported, before any fixture has a database. The
# requests go to the test application (`app=` in each call).
_DESCRIBED = create_app(Settings(database_url="postgresql://unused@127.0.0.1:1/unused",
                                 redis_url="redis://127.0.0.1:1/0", secret_key="d" * 40))
schema = schemathesis.openapi.from_wsgi(DESCRIPTION_PATH, _DESCRIBED)
schema.config.generation.update(modes=["positive", "negative"], max_examples=MAX_EXAMPLES,
                                deterministic=True, allow_x00=True)

TALLY: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)


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


@pytest.mark.parametrize("as_key", ["pull", "push"])
@schema.parametrize()
@hypothesis.settings(max_examples=MAX_EXAMPLES, derandomize=True, database=None, deadline=None,
                     suppress_health_check=list(hypothesis.HealthCheck))
@hypothesis.seed(SEED)
def test_every_operation_as_documented(case, as_key, app, keys):
    if as_key == "pull":
        target, headers = app, bearer(keys["pull"].token)
    else:
        target, headers = SigningMiddleware(app, keys["push"].token), None
    response = case.call_and_validate(app=target, headers=headers, checks=CHECKS,
                                      additional_checks=[documented_status])
    TALLY[f"{as_key:4} {case.method} {case.path}"][response.status_code] += 1
