"""What a newcomer meets first, without a browser: the service's address and the API's root lead
to the docs page; the page has a section with cause and fix for every error code, which each
error body's `doc_url` links to; the "Authorize" dialog asks for the whole signed token;
optional parameters carry no example that "Try it out" would fill in; the curl note; and the
description says its rules itself rather than citing a document partners cannot read. The same
page in a real browser: test_browser.py."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from connectivity.web.catalogue import BY_CODE, CATALOGUE

from tests.support.envelope import API, assert_envelope_failure

DOCS = f"{API}/docs"
# Contract section 6's codes (and section 2's 401s, 12.4's and 13.2's): each must have its
# section on the page.
CONTRACT_CODES = {
    "malformed_json", "missing_credentials", "invalid_credentials", "key_revoked", "key_expired",
    "signature_required", "stale_request", "invalid_signature", "replayed_request",
    "insufficient_scope", "no_mapped_properties", "sandbox_only", "not_found",
    "method_not_allowed", "sold_out", "not_sellable", "price_mismatch", "quote_expired",
    "quote_mismatch", "penalty_exceeds_expectation", "cursor_expired", "payload_too_large",
    "unsupported_media_type", "idempotency_key_reused", "validation_failed",
    "invalid_quote_token", "currency_not_supported", "rate_limited", "not_implemented",
    "service_unavailable", "internal_error", "status_changed",
}


class Sections(HTMLParser):
    """The page's error sections: id -> their text."""

    def __init__(self):
        super().__init__()
        self.sections: dict[str, str] = {}
        self._open: str | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "section" and "pcs-error" in (attributes.get("class") or ""):
            self._open = attributes["id"]
            self.sections[self._open] = ""

    def handle_endtag(self, tag):
        if tag == "section":
            self._open = None

    def handle_data(self, data):
        if self._open:
            self.sections[self._open] += data


def page_sections(client) -> dict[str, str]:
    page = client.get(DOCS)
    assert page.status_code == 200
    parser = Sections()
    parser.feed(page.get_data(as_text=True))
    return {key: " ".join(text.split()) for key, text in parser.sections.items()}


@pytest.mark.parametrize("path", ["/", API, f"{API}/"])
def test_the_address_and_the_api_root_lead_to_the_docs_page(client, path):
    response = client.get(path)
    assert response.status_code == 302
    assert response.headers["Location"] == DOCS
    assert client.get(path, follow_redirects=True).status_code == 200


def test_the_favicon_a_browser_asks_for_answers_no_content(client):
    response = client.get("/favicon.ico")
    assert (response.status_code, response.get_data()) == (204, b"")
    assert response.headers["Cache-Control"] == "public, max-age=86400"
    assert response.headers["X-Request-Id"]   # answered like any other request


def test_the_api_root_takes_no_other_method(client):
    response = client.post(API, json={})
    assert_envelope_failure(response, 405, "method_not_allowed")


def test_every_code_has_a_section_with_cause_and_fix(client):
    sections = page_sections(client)
    assert set(sections) == {f"error-{entry.code}" for entry in CATALOGUE}
    assert CONTRACT_CODES <= set(BY_CODE)
    for entry in CATALOGUE:
        text = sections[f"error-{entry.code}"]
        assert entry.cause and entry.fix, entry.code
        # the page's text is the catalogue's, code marks taken off
        assert " ".join(entry.cause.replace("`", "").split()) in text, entry.code
        assert " ".join(entry.fix.replace("`", "").split()) in text, entry.code
        assert f"{entry.code} ({entry.status})" in text
        assert "Cause." in text and "Fix." in text


def test_each_error_body_links_to_its_section(client, catalog, issue):
    sections = page_sections(client)
    answers = [client.get(f"{API}/nope"), client.get(f"{API}/ping"),
               client.delete(f"{API}/ping"),
               client.get(f"{API}/ping", headers={"Authorization": "Bearer nope.nope"})]
    for answer in answers:
        error = answer.get_json()["error"]
        path, _, anchor = error["doc_url"].partition("#")
        assert path == f"http://localhost{DOCS}" and anchor == f"error-{error['code']}"
        assert anchor in sections


def test_the_signed_scheme_asks_for_the_whole_token(client):
    schemes = client.get(f"{API}/openapi.json").get_json()["components"]["securitySchemes"]
    assert "Paste the whole token `<key_id>.<secret>`" in schemes["signed"]["description"]
    assert "not the key id alone" in schemes["signed"]["description"]
    for scheme in schemes.values():
        assert "multiple_credentials" in scheme["description"]


def test_optional_parameters_start_empty(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    filled = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []) if method != "parameters" else []:
                schema = parameter.get("schema", {})
                if not parameter.get("required") and (
                        {"example", "examples"} & set(parameter) or "example" in schema):
                    filled.append((method, path, parameter["name"]))
    assert filled == []


def test_the_description_says_its_rules_itself(client):
    text = client.get(f"{API}/openapi.json").get_data(as_text=True)
    cited = sorted(set(re.findall(r".{0,40}\bcontract\b.{0,40}", text, re.IGNORECASE)))
    assert cited == []
    description = " ".join(json.loads(text)["info"]["description"].split())
    assert "gets 401 `replayed_request`" in description  # the curl the page shows
    assert "401 `multiple_credentials`" in description and "`error.doc_url`" in description


def test_the_page_notes_a_signed_curl_repeats_a_used_nonce(client):
    script = client.get(f"{DOCS}/sign-requests.js").get_data(as_text=True)
    assert "curlNotePlugin" in script and "replayed_request" in script
    assert "window.pcsSigning.curlNotePlugin" in client.get(DOCS).get_data(as_text=True)
