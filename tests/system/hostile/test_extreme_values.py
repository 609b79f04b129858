"""Values at the edges of what JSON can say, put into every field of every operation with a body
(issue 36, item 5): integers of thousands of digits, floats at and past a 64-bit float's ends,
the smallest subnormal, integers just past PostgreSQL's bigint, a lone surrogate, nesting just
under the 64-level bound. Each one alone in an otherwise valid body (generated from the published
description, as test_generated_bad_input.py generates its bodies).

Never a 5xx: a refusal is 400 `malformed_json` or 422 `validation_failed` naming the field, and
writes no row."""

from __future__ import annotations

import json

import pytest

from tests.system.hostile.conftest import API, changes, snapshot
# The valid bodies, their generation from the description, and the fixtures holding the
# booking and reservation the cancel and modify operations address.
from tests.system.hostile.test_generated_bad_input import (  # noqa: F401 - fixtures
    BODIES, _body_schema, _locate, declared_fields, description, held)

HUGE = 10 ** 4000  # still read (Python reads up to 4,300 digits); 5,000 is refused by the wire

# (what, raw JSON text of the value)
EXTREMES = [
    ("4,001 digits", str(HUGE)),
    ("-4,001 digits", str(-HUGE)),
    ("1e308", "1e308"),
    ("-1.7976931348623157e308", "-1.7976931348623157e308"),
    ("5e-324", "5e-324"),
    ("bigint + 1", str(2 ** 63)),
    ("lone surrogate", '"a\\ud800"'),
    ("nested 60 deep", "[" * 60 + "]" * 60),
]
_MARK = "__extreme_value__"


def _with_value(body: dict, path: str, text: str) -> bytes:
    target, key = _locate(body, path)
    target[key] = _MARK
    return json.dumps(body).replace(json.dumps(_MARK), text).encode()


@pytest.mark.parametrize("operation", list(BODIES), ids=" ".join)
def test_an_extreme_value_in_any_field_is_a_clear_answer(client, keys, description, settings,
                                                         held, operation):
    method, template = operation
    key, body, values = BODIES[operation]
    path = API + template.format(**values)
    headers = {**(keys.acme_pull if key == "pull" else keys.acme_push),
               "Content-Type": "application/json"}
    fields = [field for field, *_ in declared_fields(description,
                                                      _body_schema(description, *operation))]
    assert fields
    wrong = []
    for field in fields:
        # Rows are compared around each field's values, when every one of them was refused.
        before, refused = snapshot(settings.database_url), True
        for what, text in EXTREMES:
            response = client.open(path, method=method.upper(), headers=headers,
                                   data=_with_value(body(), field, text))
            status, answer = response.status_code, response.get_json()
            refused = refused and status >= 400
            if status >= 500:
                wrong.append((field, what, status, answer))
            elif status in (400, 422):
                code = answer["error"]["code"]
                named = answer["error"]["details"].get("fields", {})
                if (status, code) == (422, "validation_failed") and not any(
                        name == field or name.startswith(field + ".") for name in named):
                    wrong.append((field, what, "422 without the field", named))
                elif (status, code) not in {(400, "malformed_json"),
                                            (422, "validation_failed")}:
                    wrong.append((field, what, status, code))
        if refused:
            gone, new = changes(before, snapshot(settings.database_url))
            if gone or new:
                wrong.append((field, "refused but wrote", gone, new))
    assert wrong == [], "\n".join(map(repr, wrong))
