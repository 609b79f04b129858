"""The description's `pattern`s are ECMA-262 (OpenAPI 3.0): Python's end-of-input anchors, which
the validators use, are published as `$` (connectivity/web/api.py, ecma_pattern)."""

from __future__ import annotations

import re


def _patterns(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            else:
                yield from _patterns(value)
    elif isinstance(node, list):
        for item in node:
            yield from _patterns(item)


def test_no_published_pattern_uses_a_python_only_anchor(client):
    patterns = list(_patterns(client.get("/api/connectivity/v1/openapi.json").get_json()))
    assert patterns
    python_only = [p for p in patterns if re.search(r"\\[AZz]", p)]
    assert python_only == []


def test_the_idempotency_key_pattern_is_published_with_its_end_anchor(client):
    spec = client.get("/api/connectivity/v1/openapi.json").get_json()
    assert "^[!-~]{1,255}$" in set(_patterns(spec))
