"""One delivery attempt: check where the URL leads now, connect to the address checked, send
the signed event, and say what came of it.

The connection goes to the checked address, not to the name (destination.py): the URL's host
is sent as the Host header and, for https, as the TLS server name, which the certificate is
verified against (httpcore's public `sni_hostname` request extension). Redirects are never
followed: a 3xx is a failed attempt like any answer that is not 2xx. The answer's body is not
read."""

from __future__ import annotations

import ssl
import time
from dataclasses import dataclass
from functools import cache

import httpx

from connectivity.webhooks.destination import (RefusedDestination, Resolver, resolve_destination,
                                               system_resolver)
from connectivity.webhooks.signature import signed_headers

# An answer must start within this (contract 12.3: 2xx within 10 s); connecting gets less, so
# that an address that drops packets costs no more than one that answers slowly.
TIMEOUT = httpx.Timeout(10.0, connect=5.0)
USER_AGENT = "partner-connectivity-webhooks/1"
MAX_ERROR_LENGTH = 500


@dataclass(frozen=True)
class Attempt:
    delivered: bool
    status_code: int | None
    error: str | None


def attempt_delivery(url: str, environment: str, secret: str, event_id: str, body: bytes, *,
                     resolver: Resolver = system_resolver, timeout: httpx.Timeout = TIMEOUT,
                     tls: ssl.SSLContext | None = None) -> Attempt:
    """`tls`: the certificates trusted (certifi's CAs unless given: a test's own CA)."""
    try:
        destination = resolve_destination(url, environment, resolver)
    except RefusedDestination as refused:
        return Attempt(False, None, _short(f"refused by the URL rules: {refused}"))
    headers = signed_headers(secret, event_id, int(time.time()), body)
    headers |= {"host": destination.host_header, "user-agent": USER_AGENT}
    extensions = {"sni_hostname": destination.host} if destination.scheme == "https" else {}
    try:
        # A client per attempt: a pooled connection would outlive the address check.
        with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False,
                          verify=tls or tls_context()) as client:
            request = client.build_request("POST", destination.connect_url, content=body,
                                           headers=headers, extensions=extensions)
            response = client.send(request, stream=True)
            response.close()
    except httpx.TimeoutException as exc:
        return Attempt(False, None, _short(f"timed out ({type(exc).__name__})"))
    except httpx.HTTPError as exc:
        return Attempt(False, None, _short(f"{type(exc).__name__}: {exc}"))
    if 200 <= response.status_code < 300:
        return Attempt(True, response.status_code, None)
    return Attempt(False, response.status_code,
                   f"the endpoint answered {response.status_code}, not 2xx")


@cache
def tls_context() -> ssl.SSLContext:
    """One per process, shared by every attempt (building one loads the CA bundle: several ms
    of CPU): certificates verified against certifi's CAs, as httpx does by default."""
    return httpx.create_ssl_context()


def _short(text: str) -> str:
    return text if len(text) <= MAX_ERROR_LENGTH else text[:MAX_ERROR_LENGTH - 3] + "..."
