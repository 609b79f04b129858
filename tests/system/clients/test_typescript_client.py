"""clients/typescript against the real service, driven from here: the live test app and the
Procfile's worker, and Node running the client's own end-to-end script
(clients/typescript/test/e2e.mjs). Needs `node` 18 or later on PATH (Debian: apt-get install
nodejs); the client has no runtime dependencies. Also: its signatures equal the Python
client's, its checked-in types are what devtools/openapi_types.py makes of the current
description, each method's declared answer is its operation's schema, and the declarations
compile under `tsc --strict` (TypeScript, its only and dev-only dependency, pinned in
package-lock.json: `npm ci` in clients/typescript, which this test runs when npm is there)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import psycopg
import pytest

from devtools.openapi_types import typescript_of
from pcs_client.signing import signed_headers
from tests.support.live_service import live_origin, worker  # noqa: F401 - fixtures
from tests.system.clients.conftest import CLIENT_SOURCE

CLIENT = CLIENT_SOURCE.parents[1] / "typescript"
API = "/api/connectivity/v1"
REGENERATE = ("flask --app app openapi print | python -m devtools.openapi_types > "
              "clients/typescript/src/schema.d.ts")


@pytest.fixture(scope="module")
def node() -> str:
    path = shutil.which("node")
    if path is None:
        pytest.skip("skipped: the TypeScript client's tests need node (18 or later) on PATH, "
                    "not found (Debian: apt-get install nodejs)")
    major = int(subprocess.run([path, "-p", "process.versions.node.split('.')[0]"],
                               capture_output=True, text=True, check=True).stdout)
    if major < 18:
        pytest.skip(f"skipped: the TypeScript client needs Node 18 or later (fetch), not {major}")
    return path


def run_node(node: str, args: list[str], env: dict | None = None) -> str:
    done = subprocess.run([node, *args], cwd=CLIENT, env=env, capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, f"node failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_end_to_end_against_the_service(node, issue, demo, live_origin, worker, services):
    env = {**os.environ, "PCS_URL": live_origin, "PCS_PULL_TOKEN": issue("pull").token,
           "PCS_PUSH_TOKEN": issue("push").token, "PCS_REFERENCE": "TS-CLIENT-1"}
    seen = json.loads(run_node(node, ["test/e2e.mjs"], env).strip().splitlines()[-1])
    assert seen["reference"] == "TS-CLIENT-1" and seen["batch_status"] == "partially_applied"
    assert seen["sleeps"] == [1, 1]   # Retry-After: 1, three attempts in all
    assert seen["changes"] >= 1
    with psycopg.connect(services.database_url) as conn:   # booked twice: one booking
        assert conn.execute("SELECT count(*), min(status) FROM bookings "
                            "WHERE partner_reference = 'TS-CLIENT-1'").fetchone() == (1, "cancelled")


@pytest.mark.parametrize("method, target, body", [
    ("PUT", f"{API}/ari?dry_run=true", '{"hotel_code":"ACME-LIS","items":[]}'),
    ("GET", f"{API}/ari/batches/5b0f", ""),
    ("POST", f"{API}/bookings", '{"guest":"Zoë"}'),   # UTF-8 bytes, not code points
])
def test_signatures_equal_the_python_clients(node, method, target, body):
    script = ("import {signedHeaders} from './src/index.js';"
              "const [m, t, b] = process.argv.slice(1);"
              "console.log(JSON.stringify(await signedHeaders('sbx_k', 's3cr3t', m, t, b,"
              " {timestamp: 1800000000, nonce: 'n0nce-1234'})));")
    out = run_node(node, ["--input-type=module", "-e", script, method, target, body])
    assert json.loads(out) == signed_headers("sbx_k", "s3cr3t", method, target,
                                             body.encode("utf-8"), timestamp=1800000000,
                                             nonce="n0nce-1234")


@pytest.fixture(scope="module")
def description(app) -> dict:
    return app.test_client().get(f"{API}/openapi.json").get_json()


def test_the_checked_in_types_are_the_descriptions(description):
    checked_in = (CLIENT / "src" / "schema.d.ts").read_text()
    assert checked_in == typescript_of(description), (
        f"clients/typescript/src/schema.d.ts is not the current description's: {REGENERATE}")


# method -> the operation it calls (its success status), and the field of `data` it answers
# (None: `data` whole).
OPERATIONS = {
    "ping": ("get", "/ping", "200", None), "whoami": ("get", "/whoami", "200", None),
    "hotels": ("get", "/mapping/hotels", "200", "hotels"),
    "hotel": ("get", "/mapping/hotels/{hotelCode}", "200", "hotel"),
    "search": ("post", "/availability/search", "200", None),
    "rates": ("post", "/availability/rates", "200", None),
    "quote": ("post", "/bookings/quote", "200", None),
    "book": ("post", "/bookings", "201", None),
    "booking": ("get", "/bookings/{reference}", "200", "booking"),
    "cancel": ("post", "/bookings/{reference}/cancel", "200", None),
    "pushAri": ("put", "/ari", "202", None),
    "pushRestrictions": ("put", "/ari/restrictions", "202", None),
    "batch": ("get", "/ari/batches/{batchId}", "200", None),
    "waitForBatch": ("get", "/ari/batches/{batchId}", "200", None),
}


def test_each_method_answers_its_operations_schema(description):
    declared = (CLIENT / "src" / "index.d.ts").read_text()
    schemas = description["components"]["schemas"]
    for method, (verb, path, status, field) in OPERATIONS.items():
        response = description["paths"][API + path][verb]["responses"][status]
        envelope = response["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        data = schemas[envelope]["properties"]["data"]["$ref"].rsplit("/", 1)[1]
        expected = f"schema.{data}" + (f'["{field}"]' if field else "")
        if field:
            assert field in schemas[data]["properties"], (method, data, field)
        match = re.search(rf"\n  {method}\([^()]*\):\s*Promise<(.+?)>;", declared, re.S)
        assert match, f"index.d.ts declares no {method}"
        assert match.group(1) == expected, (method, match.group(1), expected)


def test_the_declarations_compile_strict(node):
    tsc = CLIENT / "node_modules" / ".bin" / "tsc"
    if not tsc.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("skipped: compiling the declarations needs npm (to install the pinned "
                        "typescript: npm ci in clients/typescript), not found on PATH")
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=CLIENT,
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            pytest.skip("skipped: npm ci in clients/typescript failed (no registry?): "
                        + (done.stderr.strip().splitlines() or ["no output"])[-1])
    done = subprocess.run([node, str(tsc), "-p", "."], cwd=CLIENT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_client_has_no_runtime_dependencies():
    package = json.loads((CLIENT / "package.json").read_text())
    assert not package.get("dependencies") and not package.get("peerDependencies")
    for source in (CLIENT / "src").glob("*.js"):
        for module in re.findall(r"""(?:from|import\()\s*["']([^"']+)["']""", source.read_text()):
            assert module.startswith(("./", "node:")), (source.name, module)
