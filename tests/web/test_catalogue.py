"""The error catalogue (connectivity/web/catalogue.py) is the one home of the error codes: every
code the service raises is in it under the status it is answered with, every entry is in the
published description, and docs/errors.md is what it generates."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

import connectivity
from connectivity.settings import Settings
from connectivity.web.api import HTTP_CODES
from connectivity.web.catalogue import BY_CODE, CATALOGUE, entries_of, partners_page, status_of
from connectivity.web.error_responses import (BODY_LIMIT_RESPONSE, BODY_LIMIT_STATUS,
                                              ERROR_DESCRIPTIONS)
from connectivity.web.errors import ApiError

from tests.support.envelope import API

PACKAGE = Path(connectivity.__file__).parent
DOCS_PAGE = PACKAGE.parent / "docs" / "errors.md"


def _error_classes() -> dict[str, type[ApiError]]:
    for module in pkgutil.walk_packages([str(PACKAGE)], "connectivity."):
        importlib.import_module(module.name)
    found, todo = {}, [ApiError]
    while todo:
        cls = todo.pop()
        found[cls.__name__] = cls
        todo.extend(cls.__subclasses__())
    return found


def _takes_code(cls: type[ApiError]) -> bool:
    """Unauthorized("key_revoked", ...): the code is the first argument."""
    return list(inspect.signature(cls.__init__).parameters)[1:2] == ["code"]


def _name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _constant(node: ast.expr | None):
    return node.value if isinstance(node, ast.Constant) else None


def raised_codes() -> list[tuple[str, str, int]]:
    """(where, code, status) of each code connectivity/ raises: an error class's own code, a
    code given to an error class where it is raised (Unauthorized("key_revoked", ...)), and a
    code answered directly (error_response(503, "service_unavailable", ...))."""
    classes = _error_classes()
    # A class given its code where it is raised is checked there; any other answers its own.
    found = [(f"class {name}", cls.code, cls.status) for name, cls in classes.items()
             if not _takes_code(cls)]
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
            name = _name(node.func)
            if name == "error_response" and len(node.args) >= 2:
                status, code = _constant(node.args[0]), _constant(node.args[1])
                if isinstance(code, str):
                    found.append((where, code, status))
            elif name in classes:
                cls = classes[name]
                keywords = {k.arg: k.value for k in node.keywords}
                code_node = keywords.get("code")
                if code_node is None and _takes_code(cls) and node.args:
                    code_node = node.args[0]
                if code_node is not None:
                    code = _constant(code_node)
                    assert isinstance(code, str), f"{where}: a code the catalogue cannot check"
                    found.append((where, code, cls.status))
    return found


def test_the_catalogue_names_each_code_once():
    assert len(BY_CODE) == len(CATALOGUE)


def test_every_code_raised_is_in_the_catalogue_under_its_status():
    raised = raised_codes()
    # The scan finds the raise sites, not only the classes.
    assert any(code == "key_revoked" for _, code, _ in raised)
    assert any(code == "sold_out" for _, code, _ in raised)
    wrong = [(where, code, status) for where, code, status in raised
             if code not in BY_CODE or status_of(code) != status]
    assert wrong == [], "not in connectivity/web/catalogue.py under that status"


def test_the_framework_statuses_answer_the_catalogue_codes():
    for status, (code, message) in HTTP_CODES.items():
        assert status_of(code) == status and message
    assert HTTP_CODES[500] == ("internal_error", "internal error")


def test_each_status_description_lists_its_codes():
    for status, description in ERROR_DESCRIPTIONS.items():
        for entry in entries_of(status):
            assert f"`{entry.code}`" in description, (status, entry.code)


def test_every_entry_and_the_body_limit_are_in_the_published_description(make_app):
    document = make_app(max_body_bytes=3 * 1024 * 1024).test_client().get(
        f"{API}/openapi.json").get_json()
    introduction = document["info"]["description"]
    for entry in CATALOGUE:
        assert f"| {entry.status} | `{entry.code}` |" in introduction, entry.code
    assert "| `payload_too_large` | the body is over 3 MiB |" in introduction
    body_limit = document["components"]["responses"][BODY_LIMIT_RESPONSE]
    assert body_limit["description"].startswith("`payload_too_large`: the body is over 3 MiB")
    operation = document["paths"][f"{API}/bookings"]["post"]
    assert operation["responses"][str(BODY_LIMIT_STATUS)] == {
        "$ref": f"#/components/responses/{BODY_LIMIT_RESPONSE}"}


def test_docs_errors_md_is_generated_from_the_catalogue():
    expected = partners_page(Settings.max_body_bytes)
    assert DOCS_PAGE.read_text() == expected, (
        "docs/errors.md differs from the catalogue; regenerate it with "
        "`python -m connectivity.web.catalogue > docs/errors.md`")


@pytest.mark.parametrize("size, text", [(8 * 1024 * 1024, "8 MiB"), (512 * 1024, "512 KiB"),
                                        (1000, "1,000 bytes")])
def test_size_text(size, text):
    from connectivity.web.catalogue import size_text
    assert size_text(size) == text
