"""The docs page's signing script (connectivity/web/docs_page/sign-requests.js) run by Node's Web
Crypto: it signs exactly as the contract says (checked against tests/support/signing.py, an
independent implementation) and the service accepts what it signs. The page in a real browser
is tests/web/docs_page/test_browser.py."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.envelope import assert_envelope_success
from tests.support.signing import sign, split_token

SCRIPT = Path(__file__).resolve().parents[3] / "connectivity" / "web" / "docs_page" / "sign-requests.js"
API = "/api/connectivity/v1"


def node(program: str) -> dict:
    if shutil.which("node") is None:
        pytest.skip("skipped: node is not installed, the signing script cannot be run outside a "
                    "browser")
    probe = subprocess.run(["node", "-e", "process.exit(globalThis.crypto && "
                            "globalThis.crypto.subtle ? 0 : 3)"], timeout=60)
    if probe.returncode != 0:
        pytest.skip("skipped: this node has no Web Crypto global (Node 19 or later has it)")
    source = SCRIPT.read_text()
    done = subprocess.run(["node", "-e", f"{source}\n(async () => {{ {program} }})()"
                           ".catch((e) => { console.error(e); process.exit(1); });"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_signature_is_the_contracts():
    token = "sbx_ABCDEFGHIJKLMNOP.s3cr3t-with-ünïcode"
    body = '{"hotel_code":"ACME-LIS","items":[{"rate":1.5}]}'
    headers = node(
        f"const h = await pcsSigning.signedHeaders({json.dumps(token)}, 'put', "
        f"'/api/connectivity/v1/ari?dry_run=true', {json.dumps(body)}, 1767225600, "
        "'nonce-0123456789'); console.log(JSON.stringify(h));")
    key_id, secret = split_token(token)
    assert headers == {
        "X-Api-Key-Id": key_id, "X-Timestamp": "1767225600", "X-Nonce": "nonce-0123456789",
        "X-Signature": sign(secret, "PUT", "/api/connectivity/v1/ari?dry_run=true",
                            "1767225600", "nonce-0123456789", body.encode())}


def test_requests_it_signs_are_accepted(client, catalog, issue):
    key = issue("push")
    item = {"room_type_code": "ACME-DBL", "date": "2030-01-01", "availability": 2}
    for method, path, body in (("GET", f"{API}/ping", None),
                               ("GET", f"{API}/whoami?x=1", None),
                               # Swagger UI may hand over a string or an object
                               ("PUT", f"{API}/ari", json.dumps({"hotel_code": "ACME-LIS",
                                                                 "items": [item]})),
                               ("PUT", f"{API}/ari", {"hotel_code": "ACME-LIS",
                                                      "items": [item]})):
        request = {"url": f"http://127.0.0.1:8000{path}", "method": method,
                   "headers": {"X-Api-Key-Id": key.token, "Accept": "application/json"}}
        if body is not None:
            request["body"] = body
        signed = node(f"const r = await pcsSigning.signRequest({json.dumps(request)}); "
                      "console.log(JSON.stringify(r));")
        assert signed["headers"]["X-Api-Key-Id"] == key.key_id  # the secret stays in the page
        assert key.token.partition(".")[2] not in json.dumps(signed)
        sent = signed.get("body")
        response = client.open(path, method=method, headers=signed["headers"],
                               data=sent.encode() if sent else None,
                               content_type="application/json" if sent else None)
        assert_envelope_success(response, 202 if method == "PUT" else 200)


def test_a_request_without_a_token_goes_unchanged():
    request = {"url": "http://127.0.0.1/api/connectivity/v1/openapi.json", "method": "GET",
               "headers": {"Authorization": "Bearer x.y"}}
    assert node(f"console.log(JSON.stringify(await pcsSigning.signRequest("
                f"{json.dumps(request)})));") == request


def test_the_page_loads_the_script(client):
    page = client.get(f"{API}/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert f"{API}/docs/sign-requests.js" in html and "requestInterceptor" in html
    assert f"{API}/openapi.json" in html
    script = client.get(f"{API}/docs/sign-requests.js")
    assert script.status_code == 200 and script.mimetype == "text/javascript"
    assert client.get(f"{API}/docs/assets/swagger-ui-bundle.js").status_code == 200
