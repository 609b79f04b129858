"""JSON bodies the service cannot take (contract section 1): nesting deeper than 64, numbers past
what a 64-bit float or Python's integer reader holds, bytes that are not UTF-8, lone surrogates
and a key twice in one object. Each is a 400 `malformed_json` (a lone surrogate written as a
`\\u` escape is JSON, but not storable text: 422 naming its place), never a 500.

The operations are read from the application's URL map, so an operation added later is covered
without touching this file: every API operation whose method carries a body."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings as hypothesis_settings
from hypothesis import strategies as st

from connectivity.auth.scopes import SCOPES
from connectivity.web.api import operation_id
from connectivity.web.routing import CONVERTERS
from connectivity.web.wire import BODY_METHODS, MAX_NESTING
from tests.support.envelope import API, assert_envelope_failure

# A value of each path converter's pattern (a converter added later fails here, by name).
PATH_VALUES = {"ReferenceConverter": "GEN-1", "BatchIdConverter": "batch-1",
               "HotelCodeConverter": "ACME-LIS", "EndpointIdConverter": "we_" + "A" * 24,
               "EventIdConverter": "evt_" + "0" * 32,
               "ConfirmationNumberConverter": "PCS-ABCDEFGH2345"}
HUGE_INTEGER = "1" + "0" * 5000


def operations(app) -> list[tuple[str, str, bool]]:
    """(method, path, takes a body by its description) of every body-carrying API operation."""
    spec = app.extensions["connectivity.api"].spec.to_dict()
    found = []
    for rule in app.url_map.iter_rules():
        view = app.view_functions[rule.endpoint]
        if operation_id(view) is None:
            continue
        values = {name: PATH_VALUES[type(converter).__name__]
                  for name, converter in rule._converters.items()}
        path = app.url_map.bind("localhost").build(rule.endpoint, values)
        for method in sorted(rule.methods & BODY_METHODS):
            described = spec["paths"][_described_path(rule)][method.lower()]
            found.append((method, path, "requestBody" in described))
    return found


def _described_path(rule) -> str:
    """The rule's path as the description writes it: `{name}` for Werkzeug's `<converter:name>`."""
    return re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)


def nested(depth: int, opening: str = "[", closing: str = "]", inner: str = "") -> bytes:
    return (opening * depth + inner + closing * depth).encode()


def nested_objects(depth: int) -> bytes:
    return ('{"a":' * (depth - 1) + "{}" + "}" * (depth - 1)).encode()


# (what, raw body, status, code)
HOSTILE = [
    ("arrays 65 deep", nested(MAX_NESTING + 1), 400, "malformed_json"),
    ("objects 65 deep", nested_objects(MAX_NESTING + 1), 400, "malformed_json"),
    ("arrays 100,000 deep", nested(100_000), 400, "malformed_json"),
    ("objects 100,000 deep", nested_objects(100_000), 400, "malformed_json"),
    ("65 deep in a field", b'{"hotel_codes": ' + nested(MAX_NESTING) + b"}", 400,
     "malformed_json"),
    ("1e400", b'{"rooms": 1e400}', 400, "malformed_json"),
    ("-1e400", b'{"rooms": -1e400}', 400, "malformed_json"),
    ("5,001 digits", b'{"rooms": ' + HUGE_INTEGER.encode() + b"}", 400, "malformed_json"),
    ("5,001 digits with a fraction", b'{"rooms": ' + HUGE_INTEGER.encode() + b".5}", 400,
     "malformed_json"),
    ("invalid UTF-8", b'{"hotel_code": "\xff\xfe"}', 400, "malformed_json"),
    ("a surrogate encoded in UTF-8", b'{"hotel_code": "\xed\xa0\x80"}', 400, "malformed_json"),
    ("a duplicate key", b'{"rooms": 1, "rooms": 2}', 400, "malformed_json"),
    ("a duplicate key nested", b'{"a": [{"b": 1, "c": 2, "b": 1}]}', 400, "malformed_json"),
    ("an escaped lone surrogate", b'{"hotel_code": "\\ud800"}', 422, "validation_failed"),
    ("an escaped lone low surrogate key", b'{"\\udfff": 1}', 422, "validation_failed"),
]


@pytest.fixture
def caller(client, catalog, issue):
    """Headers of a sandbox key holding every scope, unsigned, with room for many requests."""
    key = issue("none", extra_scopes=SCOPES, signed=False, rate_limit=100000)
    return {"Authorization": f"Bearer {key.token}"}


def test_every_operation_the_description_gives_a_body_is_covered(app):
    found = operations(app)
    paths = app.extensions["connectivity.api"].spec.to_dict()["paths"]
    described = [(method, path) for path, described in paths.items()
                 for method, operation in described.items() if "requestBody" in operation]
    assert len(described) >= 11
    assert len([1 for *_, takes_body in found if takes_body]) == len(described)


@pytest.mark.parametrize("what, body, status, code", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_a_body_the_service_cannot_take_is_a_4xx_on_every_operation(app, client, caller, what,
                                                                    body, status, code):
    wrong = []
    for method, path, _ in operations(app):
        response = client.open(path, method=method, data=body, content_type="application/json",
                               headers=caller)
        if response.status_code != status or response.get_json()["error"]["code"] != code:
            wrong.append((method, path, response.status_code, response.get_data(as_text=True)))
            continue
        assert_envelope_failure(response, status, code)
    assert wrong == []


@pytest.mark.parametrize("depth", [MAX_NESTING - 1, MAX_NESTING])
def test_nesting_up_to_64_is_parsed_and_judged_by_the_fields(client, caller, depth):
    for body in (nested(depth), nested_objects(depth),
                 b'{"hotel_codes": ' + nested(depth - 1) + b"}"):
        response = client.post(f"{API}/availability/search", data=body,
                               content_type="application/json", headers=caller)
        assert_envelope_failure(response, 422, "validation_failed")


@pytest.mark.parametrize("depth", [MAX_NESTING + 1, 100_000])
def test_nesting_past_64_says_so(client, caller, depth):
    response = client.put(f"{API}/ari", data=nested(depth), content_type="application/json",
                          headers=caller)
    error = assert_envelope_failure(response, 400, "malformed_json")
    assert error["message"] == "the body nests arrays and objects deeper than 64 levels"


def test_the_messages_name_what_is_wrong(client, caller):
    def message(body: bytes) -> str:
        response = client.post(f"{API}/availability/search", data=body,
                               content_type="application/json", headers=caller)
        return assert_envelope_failure(response, 400, "malformed_json")["message"]
    assert message(b'{"rooms": 1, "rooms": 2}') == 'the key "rooms" appears twice in one object'
    assert message(b'{"rooms": 1e400}') == \
        'the number "1e400" is beyond the range of a 64-bit float'
    assert message(b'{"rooms": -' + HUGE_INTEGER.encode() + b"}") == \
        'the number "-100000000000000000000000000000000000..." has too many digits (5001)'


def test_numbers_within_range_are_judged_by_the_fields(client, caller):
    # 1e-400 is 0.0 (underflow); 4,300 digits is still read: both reach the field rules.
    for number in (b"1e-400", b"1" + b"0" * 4299, b"1e308"):
        response = client.post(f"{API}/availability/search", data=b'{"rooms": ' + number + b"}",
                               content_type="application/json", headers=caller)
        error = assert_envelope_failure(response, 422, "validation_failed")
        assert "rooms" in error["details"]["fields"], error


# --- generated: JSON-like text with every hazard above, anywhere --------------------------------

_KEYS = [b'"x"', b'"y"', b'"\\ud800"', b'"\\u0000"', b'"\xff"']
_SCALARS = st.sampled_from([
    b"null", b"true", b"0", b"-1", b"0.1", b"1e400", b"-1e400", b"1e-400", HUGE_INTEGER.encode(),
    b"1e308", b'"ok"', b'"\\ud800"', b'"\\udc00x"', b'"\\u0000"', b'"\xed\xa0\x80"', b'"\xff"',
    b"NaN", b"01",
])


def _containers(children):
    arrays = st.lists(children, max_size=3).map(lambda items: b"[" + b",".join(items) + b"]")
    objects = st.lists(st.tuples(st.sampled_from(_KEYS), children), min_size=1, max_size=3).map(
        lambda pairs: b"{" + b",".join(k + b":" + v for k, v in pairs) + b"}")
    return arrays | objects


# Any of the above, inside 0 to 5,000 arrays.
BODIES = st.builds(lambda inner, depth: b"[" * depth + inner + b"]" * depth,
                   st.recursive(_SCALARS, _containers, max_leaves=12),
                   st.sampled_from([0, 0, 1, MAX_NESTING - 3, MAX_NESTING + 1, 5000]))


@hypothesis_settings(max_examples=150, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture,
                                            HealthCheck.too_slow])
@given(data=st.data())
def test_generated_bodies_are_a_400_or_a_422_never_a_5xx(app, client, caller, data):
    method, path, takes_body = data.draw(st.sampled_from(operations(app)), label="operation")
    body = data.draw(BODIES, label="body")
    response = client.open(path, method=method, data=body, content_type="application/json",
                           headers=caller)
    assert response.status_code < 500, (response.status_code, response.get_data(as_text=True))
    if not takes_body and response.status_code != 400:
        return  # an operation without a body ignores a well-formed one
    # No schema has the keys "x" or "y", and no body here is an empty object: whatever parses
    # breaks a field rule.
    code = response.get_json()["error"]["code"]
    assert (response.status_code, code) in {(400, "malformed_json"), (422, "validation_failed")}
    assert_envelope_failure(response, response.status_code, code)
