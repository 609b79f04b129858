"""One delivery attempt: check where the URL leads now, connect to the address checked, send
the signed event, and say what came of it, all within the attempt's deadline (deadline.py).

The connection goes to the checked address, not to the name (destination.py): the URL's host
is sent as the Host header and, for https, as the TLS server name, which the certificate is
verified against (httpcore's `sni_hostname` request extension). Redirects are never
followed: a 3xx is a failed attempt like any answer that is not 2xx. The answer's body is not
read: the attempt ends with the answer's head."""

from __future__ import annotations

import ssl
import time
from dataclasses import dataclass
from functools import cache

import httpcore

from connectivity.webhooks.deadline import Deadline, DeadlineBackend
from connectivity.webhooks.destination import (RefusedDestination, ResolutionTimedOut, Resolver,
                                               resolve_destination, system_resolver, within)
from connectivity.webhooks.signature import signed_headers

# The whole attempt, from resolving the host to the answer's last header byte (contract 12.3:
# 2xx within 10 s). Connecting gets at most CONNECT_SECONDS of it, so that an address that
# drops packets fails as soon as one that answers slowly.
ATTEMPT_SECONDS = 10.0
CONNECT_SECONDS = 5.0
USER_AGENT = "partner-connectivity-webhooks/1"
MAX_ERROR_LENGTH = 500


@dataclass(frozen=True)
class Attempt:
    delivered: bool
    status_code: int | None
    error: str | None


def attempt_delivery(url: str, environment: str, secret: str, event_id: str, body: bytes, *,
                     resolver: Resolver = system_resolver, allow_loopback: bool = False,
                     seconds: float = ATTEMPT_SECONDS,
                     tls: ssl.SSLContext | None = None) -> Attempt:
    """`tls`: the certificates trusted (certifi's CAs unless given: a test's own CA)."""
    deadline = Deadline(seconds)
    try:
        destination = resolve_destination(url, environment, within(resolver, deadline.left()),
                                          allow_loopback=allow_loopback)
    except RefusedDestination as refused:
        return Attempt(False, None, _short(f"refused by the URL rules: {refused}"))
    except ResolutionTimedOut:
        return Attempt(False, None, f"timed out: the host did not resolve within {seconds:g} s")
    headers = signed_headers(secret, event_id, int(time.time()), body)
    headers |= {"host": destination.host_header, "user-agent": USER_AGENT}
    left = deadline.left()
    extensions = {"timeout": {"connect": min(CONNECT_SECONDS, left), "read": left,
                              "write": left, "pool": left}}
    if destination.scheme == "https":
        extensions["sni_hostname"] = destination.host
    try:
        # A pool per attempt: a kept connection would outlive the address check.
        with httpcore.ConnectionPool(ssl_context=tls or tls_context(), max_connections=1,
                                     retries=0, network_backend=DeadlineBackend(deadline)) as pool:
            with pool.stream("POST", destination.connect_url, headers=list(headers.items()),
                             content=body, extensions=extensions) as response:
                status = response.status
    except httpcore.TimeoutException as exc:
        return Attempt(False, None, f"timed out: no complete answer within {seconds:g} s "
                                    f"({type(exc).__name__})")
    except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as exc:
        return Attempt(False, None, _short(f"{type(exc).__name__}: {exc}"))
    if 200 <= status < 300:
        return Attempt(True, status, None)
    return Attempt(False, status, f"the endpoint answered {status}, not 2xx")


@cache
def tls_context() -> ssl.SSLContext:
    """One per process, shared by every attempt (building one loads the CA bundle: several ms
    of CPU): certificates verified against certifi's CAs, as httpcore does by default."""
    return httpcore.default_ssl_context()


def _short(text: str) -> str:
    return text if len(text) <= MAX_ERROR_LENGTH else text[:MAX_ERROR_LENGTH - 3] + "..."
