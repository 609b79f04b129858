"""The service as a partner reaches it, started from Python: an app on a real socket (werkzeug,
threaded, in this process) and the Procfile's processes beside it. For the tests that go through
HTTP end to end (tests/support/live_service.py) and the console's scripts
(devtools/console_stack.py)."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from werkzeug.serving import make_server

from connectivity import API_PREFIX
from connectivity.auth.credentials import SigningVault
from connectivity.auth.signing import signature
from connectivity.operator.keys import issue_key
from connectivity.web.services import services_of

ROOT = Path(__file__).resolve().parent.parent


@contextmanager
def serving(app) -> Iterator[str]:
    """`app` listening on a free port of 127.0.0.1; yields its origin (http://127.0.0.1:N)."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(10)


@contextmanager
def procfile_process(module: str, settings: dict[str, str]) -> Iterator[subprocess.Popen]:
    """`python -m module` (connectivity.worker, connectivity.webhook_worker) with `settings`
    over this process's environment; stopped (SIGTERM, then SIGKILL after 30 s) on exit."""
    proc = subprocess.Popen([sys.executable, "-m", module], cwd=ROOT,
                            env={**os.environ, **settings},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@dataclass
class LiveService:
    """A served app as a partner reaches it: keys issued by the operator's function, signed
    calls over HTTP."""
    origin: str
    app: object
    secret_key: str

    def issue(self, preset: str, partner: str = "acme", name: str = "console", **options) -> str:
        """A sandbox key's whole token."""
        services = services_of(self.app)
        return services.db.run(issue_key, SigningVault(self.secret_key),
                               partner_code=partner, name=name, environment="sandbox",
                               preset=preset, **options).token

    def call(self, token: str, method: str, path: str, body=None, **query) -> dict:
        """One signed API call over HTTP; the envelope's data, or RuntimeError with its error."""
        key_id, _, secret = token.partition(".")
        content = b"" if body is None else json.dumps(body).encode()
        target = httpx.URL(f"{self.origin}{API_PREFIX}{path}", params=query or None)
        path_and_query = target.raw_path.decode()
        timestamp, nonce = str(int(time.time())), secrets.token_hex(16)
        headers = {"X-Api-Key-Id": key_id, "X-Timestamp": timestamp, "X-Nonce": nonce,
                   "X-Signature": signature(secret, method, path_and_query, timestamp, nonce,
                                            content)}
        if body is not None:
            headers["Content-Type"] = "application/json"
        answer = httpx.request(method, target, content=content, headers=headers, timeout=30)
        envelope = answer.json()
        if not envelope.get("success"):
            raise RuntimeError(f"{method} {path}: {answer.status_code} {envelope.get('error')}")
        return envelope["data"]

    def book(self, token: str, reference: str, hotel_code: str, room_type_code: str,
             rate_plan_code: str, check_in: str, check_out: str) -> dict:
        """A quote, then the booking it prices, for two adults in one room."""
        stay = {"hotel_code": hotel_code, "room_type_code": room_type_code,
                "rate_plan_code": rate_plan_code, "check_in": check_in, "check_out": check_out,
                "rooms": 1}
        quote = self.call(token, "POST", "/bookings/quote", {**stay, "occupancy": [{"adults": 2}]})
        guests = [{"room_number": 1, "first_name": first, "last_name": "Silva", "is_adult": True}
                  for first in ("Ana", "Rui")]
        return self.call(token, "POST", "/bookings", {
            **stay, "partner_reference": reference, "quote_token": quote["quote_token"],
            "total_amount": quote["total_amount"], "currency": quote["currency"],
            "guests": guests, "contact": {"first_name": "Ana", "email": "ana@example.com"}},
        )["booking"]

    def push(self, token: str, path: str, body: dict, timeout: float = 60) -> dict:
        """PUT /ari or /ari/restrictions, then the batch once the worker has finished it."""
        batch_id = self.call(token, "PUT", path, body)["batch_id"]
        deadline = time.monotonic() + timeout
        while True:
            batch = self.call(token, "GET", f"/ari/batches/{batch_id}")
            if batch["status"] not in ("queued", "processing"):
                return batch
            if time.monotonic() > deadline:
                raise RuntimeError(f"batch {batch_id} still {batch['status']} after {timeout} s")
            time.sleep(0.2)
