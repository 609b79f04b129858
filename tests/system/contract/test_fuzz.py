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
import re

import hypothesis
import schemathesis
from schemathesis.checks import CHECKS as ALL_CHECKS
from schemathesis.specs.openapi import checks as spec_checks
from schemathesis.openapi import checks as openapi_checks  # noqa: F401 - registers the checks

from app import create_app
from connectivity.settings import Settings
from tests.support.signing import bearer

from tests.system.contract.conftest import DESCRIPTION_PATH, SigningMiddleware

# Each operation is fuzzed in full with the key made for it (pull: handshake, mapping,
# availability, bookings; push: handshake, ARI, reservations, hotel bookings): MAX_EXAMPLES generated cases
# plus schemathesis's coverage cases (boundaries, wrong types, NUL bytes, huge integers,
# unexpected methods). With the other key it only has to be refused as documented (403): a few
# generated cases, no coverage phase. Together about a minute on a 2-core machine.
MAX_EXAMPLES = 20
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

PULL_AREAS = r"/api/connectivity/v1/(ping|whoami|mapping|availability|bookings|webhook-endpoints)"
PUSH_AREAS = r"/api/connectivity/v1/(ping|whoami|ari|reservations|hotel-bookings)"
with_pull_key = own.include(path_regex=PULL_AREAS)
with_push_key = own.include(path_regex=PUSH_AREAS)
pull_key_on_push_side = other.include(
    path_regex=r"/api/connectivity/v1/(ari|reservations|hotel-bookings)")
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
    if case.query:
        case.query = steer(case.query)
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


# Rules of the service that JSON Schema cannot state (each is said in its field's description
# instead): the field, digits of list positions as N, and how its message starts. A request the
# description calls valid may be refused (422) for these, and only these.
BEYOND_JSON_SCHEMA = {
    "check_in": ("must be today or later",),                    # "today" is the property's
    "check_out": ("must be after check_in", "a stay is at most"),
    "to_date": ("must be on or after from_date", "must be at most 366 days after from_date"),
    "occupancy": ("must have 1 entry (applied to every room) or exactly",),
    "occupancy.N.child_ages": ("must have exactly `children`",),
    "guests": ("room N must have at least one adult", "at most one guest may be `is_lead`"),
    "guests.N.room_number": ("must be a room number between",),
    "sell_amount": ("sell_amount and sell_currency are sent together",),
    "sell_currency": ("sell_amount and sell_currency are sent together",),
    "rooms.N.nightly_rates": ("dates outside the stay", "a night is listed more than once"),
    "items.N.to_date": ("must be on or after from_date",),
    # a standard e-mail validator's rules (lengths of the local part and of each label, the
    # whole at most 254 characters...) are more than `format: email` says
    "contact.email": ("must be a valid e-mail address",),
    # an amount's decimal places: `multipleOf` on a JSON number is float arithmetic
    "*amount": ("must have at most 6 decimal places",),
    # a webhook URL's rules (contract 12.3): what its host resolves to, its scheme and parts
    "url": ("the host", "an absolute http", "an absolute https", "not a valid URL",
            "the URL has no host", "credentials in the URL", "a URL with a fragment",
            "a URL holds no spaces"),
    "event_types": ("unknown event type(s)", '"*" stands alone', "each type at most once"),
    # a listing's cursor (bookings, deliveries), like a feed's, is only ever one the service gave
    "cursor": ("not a cursor of this list",),
}


# 422 codes other than validation_failed whose cause no schema can see: a quote token's
# signature (only this service can tell one it issued), the operator's FX table, and an
# Idempotency-Key's earlier use (the fuzzer repeats its keys with other bodies).
BEYOND_JSON_SCHEMA_CODES = {"invalid_quote_token", "currency_not_supported",
                            "idempotency_key_reused"}


def _beyond_json_schema(path: str, message: str) -> bool:
    shape = re.sub(r"\.\d+(?=\.|$)", ".N", path)
    starts = BEYOND_JSON_SCHEMA.get(shape, ())
    if shape.endswith(("amount", "rate")):  # every Amount field: *_amount, rate, *_rate
        starts += BEYOND_JSON_SCHEMA["*amount"]
    message = re.sub(r"\d+", "N", message)
    return any(message.startswith(re.sub(r"\d+", "N", start)) for start in starts)


def positive_data_acceptance_but_beyond_json_schema(ctx, response, case):
    """schemathesis's positive data acceptance (ST202), except for a 422 whose every failing
    field is refused by a rule of BEYOND_JSON_SCHEMA, or whose code is one of
    BEYOND_JSON_SCHEMA_CODES."""
    try:
        return spec_checks.positive_data_acceptance(ctx, response, case)
    except Exception:
        # A feed cursor's signature, like a quote token's, only this service can check.
        if response.status_code == 410 and response.json()["error"]["code"] == "cursor_expired":
            return None
        if response.status_code == 422:
            if response.json()["error"]["code"] in BEYOND_JSON_SCHEMA_CODES:
                return None
            fields = response.json()["error"].get("details", {}).get("fields", {})
            if fields and all(_beyond_json_schema(path, message)
                              for path, messages in fields.items() for message in messages):
                return None
        raise


# `/bookings/quote` is also `/bookings/{reference}` with the reference "quote" (a valid one:
# such a booking can be read), so its `Allow` rightly lists GET beside POST.
ALSO_ANOTHER_OPERATION = {"/api/connectivity/v1/bookings/quote": {"GET"}}


def allow_header_but_shared_paths(ctx, response, case):
    """schemathesis's Allow header conformance (ST205), except for the methods a path has as
    another operation's (ALSO_ANOTHER_OPERATION)."""
    try:
        return spec_checks.allow_header_conformance(ctx, response, case)
    except Exception:
        documented = {method.upper() for method in case.operation.schema.raw_schema["paths"][
            case.operation.path] if method.upper() in ("GET", "POST", "PUT", "DELETE", "PATCH")}
        allowed = {m.strip() for m in response.headers.get("allow", [""])[0].split(",")}
        shared = ALSO_ANOTHER_OPERATION.get(case.formatted_path, set())
        if allowed - {"HEAD", "OPTIONS"} == documented | shared:
            return None
        raise


REPLACED = {spec_checks.positive_data_acceptance: positive_data_acceptance_but_beyond_json_schema,
            spec_checks.allow_header_conformance: allow_header_but_shared_paths}
# Every check schemathesis has, not a chosen few; the two above with their named exceptions.
CHECKS = [check for check in ALL_CHECKS.get_all() if check not in REPLACED]


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
        target = SigningMiddleware(app, keys["push"].token)
        headers = {"X-Api-Key-Id": keys["push"].token.partition(".")[0]}
    # The sandbox scenarios force 409, 429, 500 and 503 on purpose (tests/sandbox holds each to
    # the contract); sent by the fuzzer they would read as the service failing.
    if case.headers:
        case.headers.pop("X-Sandbox-Scenario", None)
    steered = steer_case(case)
    response = case.call_and_validate(app=target, headers=headers, checks=CHECKS,
                                      additional_checks=[documented_status, *REPLACED.values()])
    label = f"{as_key} {case.operation.method.upper()} {case.path}"
    TALLY[label]["other methods" if case.method.upper() != case.operation.method.upper()
                 else response.status_code] += 1
    if steered:
        TALLY[label]["steered"] += 1
