"""clients/typescript against the real service, driven from here: the live test app and the
Procfile's worker, and Node running the client's own end-to-end script
(clients/typescript/test/e2e.mjs) and its webhook verification script (test/webhooks.mjs).
Needs `node` 18 or later on PATH (Debian: apt-get install nodejs); the client has no runtime
dependencies. Also: its signatures equal the Python client's, verifyWebhook accepts what the
service, the Python client and the Standard Webhooks package sign or accept and refuses what
they refuse, its methods and exports are the Python client's in camelCase, its checked-in types
are what devtools/openapi_types.py makes of the current description, each method's declared
answer is its operation's schema, and the declarations compile under `tsc --strict`
(TypeScript, its only and dev-only dependency, pinned in package-lock.json: `npm ci` in
clients/typescript, which this test runs when npm is there)."""

from __future__ import annotations

import datetime as dt
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pcs_client
import psycopg
import pytest
from standardwebhooks import Webhook

from connectivity.webhooks import signature as service_webhooks
from devtools.openapi_types import typescript_of
from devtools.walkthrough import next_week_stay, walkthrough
from pcs_client import WebhookVerificationError, models, verify_webhook
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


def end_to_end(node: str, env: dict) -> dict:
    """test/e2e.mjs run once: what it saw, checked."""
    seen = json.loads(run_node(node, ["test/e2e.mjs"], env).strip().splitlines()[-1])
    assert seen["batch_status"] == "partially_applied"
    assert seen["sleeps"] == [1, 1]   # Retry-After: 1, three attempts in all
    assert seen["changes"] >= 1
    assert seen["hotel_confirmation_code"] == "LIS-77"
    assert (seen["listed"], len(seen["events"]), seen["reservation_versions"]) == (2, 3, 1)
    return seen


def test_end_to_end_against_the_service(node, issue, demo, live_origin, worker, services):
    env = {**os.environ, "PCS_URL": live_origin, "PCS_PULL_TOKEN": issue("pull").token,
           "PCS_PUSH_TOKEN": issue("push").token, "PCS_REFERENCE": "TS-CLIENT-1",
           "PCS_CHANNEL_TOKEN": issue("push", partner="lisboa-cm", signed=False).token}
    assert end_to_end(node, env)["reference"] == "TS-CLIENT-1"
    with psycopg.connect(services.database_url) as conn:   # booked twice: one booking
        assert conn.execute("SELECT count(*), min(status) FROM bookings "
                            "WHERE partner_reference = 'TS-CLIENT-1'").fetchone() == (1, "cancelled")


def test_end_to_end_twice_on_a_sandbox_the_walkthrough_used(node, issue, demo, live_origin,
                                                             worker, tmp_path):
    """`npm test` as a partner runs it on their sandbox: after the walk-through `make run`
    prints has booked next week, then once more right after (each run its own references and
    stay, and only what it made read back)."""
    missing = [tool for tool in ("bash", "curl", "openssl") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"skipped: the walk-through needs {', '.join(missing)}, not found on PATH")
    pull, push = issue("pull", rate_limit=100000), issue("push", rate_limit=100000)
    channel = issue("push", partner="lisboa-cm", signed=False)
    script = tmp_path / "walkthrough.sh"
    script.write_text(walkthrough(live_origin, pull.token, push.key_id,
                                  push.token.partition(".")[2],
                                  *next_week_stay(dt.datetime.now(dt.timezone.utc)),
                                  channel_token=channel.token))
    # python3 (to read JSON in the script) is this interpreter.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    done = subprocess.run(["bash", "-e", str(script)], capture_output=True, text=True,
                          env={**os.environ, "PATH": path}, timeout=180)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    env = {**os.environ, "PCS_URL": live_origin, "PCS_PULL_TOKEN": pull.token,
           "PCS_PUSH_TOKEN": push.token, "PCS_CHANNEL_TOKEN": channel.token}
    env.pop("PCS_REFERENCE", None)
    first, second = end_to_end(node, env), end_to_end(node, env)
    assert first["reference"] != second["reference"]
    assert not set(first["events"]) & set(second["events"])


NEAREST = ("import {nearest} from './src/options.js';"
           "console.log(JSON.stringify(JSON.parse(process.argv[1])"
           ".map(([name, known]) => nearest(name, known))));")


def test_both_clients_suggest_the_same_nearest_option(node):
    from pcs_client.options import nearest
    known = ["expected_penalty_amount", "currency", "reason", "poll_seconds", "limit", "rooms",
             "room_type_codes", "check_in_from", "check_in_to"]
    cases = [[name, known] for name in ("expectedPenaltyAmount", "EXPECTED-penalty", "poll",
                                        "lmit", "room_types", "checkInTo", "curency", "why")]
    cases += [[name, [_camel(k) for k in known]] for name, _ in cases]
    out = run_node(node, ["--input-type=module", "-e", NEAREST, json.dumps(cases)])
    assert json.loads(out) == [nearest(name, names) for name, names in cases]


def test_options_are_checked_at_run_time(node):
    # test/options.mjs: the JavaScript client called with snake_case (and misspelt) options
    # refuses them before sending, naming the nearest option; camelCase ones go out snake_case.
    assert json.loads(run_node(node, ["test/options.mjs"]).strip()) == {"options": "ok"}


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


def test_webhooks_verify_on_their_own(node):
    # test/webhooks.mjs: deliveries signed with node:crypto, apart from the client's Web Crypto.
    assert json.loads(run_node(node, ["test/webhooks.mjs"]).strip()) == {"webhooks": "ok"}


EVENT = {"event_id": "evt_" + "a" * 32, "type": "booking.confirmed",
         "created_at": "2027-01-01T10:00:00+00:00", "data": {"booking": {"reference": "Zoë"}}}
BODY = json.dumps(EVENT, ensure_ascii=False, separators=(",", ":"))   # UTF-8 bytes once sent
VERIFY = ("import {verifyWebhook} from './src/index.js';"
          "const out = [];"
          "for (const [headers, body, secret] of JSON.parse(process.argv[1])) {"
          "  try { out.push(await verifyWebhook(headers, body, secret)); }"
          "  catch (error) { out.push(error.name); } }"
          "console.log(JSON.stringify(out));")


def _deliveries() -> dict[str, tuple[dict, str, str, bool]]:
    """name -> (headers, body, secret, accepted): deliveries signed by the service and by the
    standardwebhooks package, and forged or stale ones."""
    secret, other = service_webhooks.new_webhook_secret(), service_webhooks.new_webhook_secret()
    now = int(time.time())

    def sent(at=now, key=secret):
        return service_webhooks.signed_headers(key, EVENT["event_id"], at, BODY.encode())

    at = dt.datetime.fromtimestamp(now, dt.timezone.utc)
    theirs = Webhook(secret).sign(EVENT["event_id"], at, BODY)
    rotated = f"v2,abc {sent(key=other)['webhook-signature']} {sent()['webhook-signature']}"
    return {
        "the service's": (sent(), BODY, secret, True),
        "standardwebhooks'": ({**sent(), "webhook-signature": theirs}, BODY, secret, True),
        "shouted": ({k.upper(): v for k, v in sent().items()}, BODY, secret, True),
        "one of several": ({**sent(), "webhook-signature": rotated}, BODY, secret, True),
        "tampered body": (sent(), BODY.replace("Zoë", "Zoe"), secret, False),
        "wrong secret": (sent(), BODY, other, False),
        # a minute past the 300 s tolerance: node's start on a busy machine does not bring it in
        "old": (sent(at=now - 360), BODY, secret, False),
        "future": (sent(at=now + 360), BODY, secret, False),
        "another id": ({**sent(), "webhook-id": "evt_" + "b" * 32}, BODY, secret, False),
        "no signature": ({k: v for k, v in sent().items() if k != "webhook-signature"}, BODY,
                         secret, False),
        "garbage signature": ({**sent(), "webhook-signature": "v1,%%%"}, BODY, secret, False),
    }


def _python_verdict(headers: dict, body: str, secret: str):
    try:
        return verify_webhook(headers, body.encode(), secret)
    except WebhookVerificationError:
        return "WebhookVerificationError"


def test_verify_webhook_agrees_with_the_python_client_and_standardwebhooks(node):
    deliveries = _deliveries()
    cases = [[headers, body, secret] for headers, body, secret, _ in deliveries.values()]
    verdicts = json.loads(run_node(node, ["--input-type=module", "-e", VERIFY, json.dumps(cases)]))
    for (name, (headers, body, secret, accepted)), verdict in zip(deliveries.items(), verdicts):
        assert verdict == (EVENT if accepted else "WebhookVerificationError"), name
        assert _python_verdict(headers, body, secret) == verdict, name
        if accepted and name != "shouted":   # the reference package verifies the accepted too
            assert Webhook(secret).verify(body.encode(), headers) == EVENT, name


# Python-only methods (why), and TypeScript-only exports (why).
PYTHON_ONLY = {"close": "closes the httpx connection pool; fetch holds none to close"}
TYPESCRIPT_ONLY = {"signature": "the HMAC of a string to sign, exported for debugging signing"}
SURFACE = ("import * as pcs from './src/index.js';"
           "console.log(JSON.stringify({exports: Object.keys(pcs).sort(), methods:"
           " Object.getOwnPropertyNames(pcs.Client.prototype)"
           ".filter((m) => m !== 'constructor' && !m.startsWith('_')).sort()}));")


def _camel(name: str) -> str:
    if name.isupper() or name[0].isupper():   # constants and classes keep their names
        return name
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def test_the_same_surface_as_the_python_client(node):
    surface = json.loads(run_node(node, ["--input-type=module", "-e", SURFACE]))
    python_methods = {name for name, _ in inspect.getmembers(pcs_client.Client, inspect.isfunction)
                      if not name.startswith("_")} - set(PYTHON_ONLY)
    assert surface["methods"] == sorted(_camel(name) for name in python_methods)
    # Python's answer classes (models) are the description's types in TypeScript (schema.d.ts).
    python_exports = {name for name in pcs_client.__all__
                      if getattr(models, name, None) is not getattr(pcs_client, name)}
    assert surface["exports"] == sorted({_camel(name) for name in python_exports}
                                        | set(TYPESCRIPT_ONLY))
    declared = (CLIENT / "src" / "index.d.ts").read_text()
    for method in surface["methods"]:
        assert re.search(rf"\n  {method}[<(]", declared), f"index.d.ts declares no {method}"
    for name in surface["exports"]:
        assert re.search(rf"\nexport declare (const|class|function) {name}\b", declared), name


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
    "getReservation": ("get", "/reservations/{reference}", "200", None),
    "hotelBooking": ("get", "/hotel-bookings/{confirmationNumber}", "200", "hotel_booking"),
    "acknowledge": ("post", "/hotel-bookings/{confirmationNumber}/acknowledge", "200",
                    "hotel_booking"),
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


# iterator -> the operation it pages through, the list in its `data`, and whether each item
# comes with the cursor after it.
ITERATORS = {"listBookings": ("/bookings", "bookings", False),
             "changes": ("/availability/changes", "changes", True),
             "events": ("/events", "events", True),
             "listHotelBookings": ("/hotel-bookings", "hotel_bookings", False)}


def test_each_iterator_yields_its_operations_items(description):
    declared = (CLIENT / "src" / "index.d.ts").read_text()
    schemas = description["components"]["schemas"]
    for method, (path, items, with_cursor) in ITERATORS.items():
        response = description["paths"][API + path]["get"]["responses"]["200"]
        envelope = response["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
        data = schemas[envelope]["properties"]["data"]["$ref"].rsplit("/", 1)[1]
        item = schemas[data]["properties"][items]["items"]["$ref"].rsplit("/", 1)[1]
        expected = f"[schema.{item}, string]" if with_cursor else f"schema.{item}"
        match = re.search(rf"\n  {method}\([^()]*\):\s*AsyncGenerator<(.+?), void, void>;",
                          declared, re.S)
        assert match, f"index.d.ts declares no {method} iterator"
        assert match.group(1) == expected, (method, match.group(1), expected)


@pytest.fixture(scope="module")
def tsc(node) -> str:
    """The pinned TypeScript compiler of clients/typescript (npm ci there when missing)."""
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
    return str(tsc)


def test_the_declarations_compile_strict(node, tsc):
    done = subprocess.run([node, tsc, "-p", "."], cwd=CLIENT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


ESM_CALLER = """import { Client, UnknownOption } from "pcs-client";
const client = new Client("http://127.0.0.1:9", "sbx_key.secret");
try {
  await client.cancel("REF-1", { expected_penalty_amount: 0 } as never);
} catch (error) {
  if (error instanceof UnknownOption) console.log(error.suggestion);
}
"""
CJS_CALLER = """async function main(): Promise<void> {
  const { Client } = await import("pcs-client");
  console.log(typeof new Client("http://127.0.0.1:9", "sbx_key.secret").ping);
}
void main();
"""


def test_the_readmes_tsconfig_compiles_a_fresh_npm_project(node, tsc, tmp_path):
    """The README's set-up as a new partner follows it: `npm init -y`, `npm pkg set
    type=module`, `npm install` the client, the README's tsconfig.json; `tsc` compiles an ES
    module and a CommonJS one (through import()) against the client, and both run."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("skipped: a fresh npm project needs npm, not found on PATH")
    readme = (CLIENT / "README.md").read_text()
    section = readme[readme.index("## An ES module"):]
    tsconfig = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    project = tmp_path / "partner"
    project.mkdir()

    def run(*command):
        done = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (command, done.stdout[-2000:], done.stderr[-2000:])
        return done.stdout

    run(npm, "init", "-y")
    run(npm, "pkg", "set", "type=module")
    run(npm, "install", "--offline", "--no-audit", "--no-fund", str(CLIENT))
    (project / "tsconfig.json").write_text(json.dumps(tsconfig))
    (project / "src").mkdir()
    (project / "src" / "index.ts").write_text(ESM_CALLER)
    (project / "src" / "legacy.cts").write_text(CJS_CALLER)
    run(node, tsc, "-p", ".")
    assert run(node, "dist/index.js").strip() == "expectedPenaltyAmount"
    assert run(node, "dist/legacy.cjs").strip() == "function"


def test_the_client_has_no_runtime_dependencies():
    package = json.loads((CLIENT / "package.json").read_text())
    assert not package.get("dependencies") and not package.get("peerDependencies")
    for source in (CLIENT / "src").glob("*.js"):
        for module in re.findall(r"""(?:from|import\()\s*["']([^"']+)["']""", source.read_text()):
            assert module.startswith(("./", "node:")), (source.name, module)
