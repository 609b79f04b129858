"""What a caller may do: each versioned route declares its access policy with `@requires`, and
`guard_request` enforces, in this order, authentication (401), the key's rate limit (429), the
route's scopes (403 insufficient_scope) and the partner's mapped properties (403
no_mapped_properties). A route under the API prefix without a policy stops the app at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog
from flask import current_app, g, request

from ..errors import InsufficientScope, NoMappedProperties, RateLimited
from .authenticate import Caller
from .scopes import SCOPES


@dataclass(frozen=True)
class AccessPolicy:
    scopes: tuple[str, ...]
    # True when holding any one of `scopes` is enough (batch reads), False when all are needed.
    any_of: bool = False
    needs_mapped_properties: bool = True

    def allows(self, held: frozenset[str]) -> bool:
        if not self.scopes:
            return True
        found = [s in held for s in self.scopes]
        return any(found) if self.any_of else all(found)


def requires(*scopes: str, any_of: bool = False, needs_mapped_properties: bool = True):
    """Declare a route's access policy. Place it under `@blp.route` (closest to the function)."""
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown:
        raise ValueError(f"unknown scope(s) {unknown}")
    policy = AccessPolicy(tuple(scopes), any_of, needs_mapped_properties)

    def mark(view):
        view.access_policy = policy
        return view
    return mark


def policy_of(endpoint: str | None) -> AccessPolicy | None:
    view = current_app.view_functions.get(endpoint) if endpoint else None
    return getattr(view, "access_policy", None)


def current_caller() -> Caller:
    return g.caller


def guard_request() -> None:
    """before_request: a no-op for unmatched routes (routing answers 404/405 first, whatever the
    credentials) and for public routes (health, docs)."""
    if request.routing_exception is not None:
        return
    policy = policy_of(request.endpoint)
    if policy is None:
        return
    guards = current_app.extensions["connectivity.guards"]
    caller = guards.authenticator.authenticate(request)
    g.caller = caller
    structlog.contextvars.bind_contextvars(key_id=caller.key_id, partner=caller.partner_code)

    decision = guards.rate_limiter.hit(caller.key_id, caller.rate_limit_per_minute)
    g.rate_limit = decision
    if not decision.allowed:
        raise RateLimited(
            f"more than {decision.limit} requests in 60 s for this key; retry after "
            f"{decision.retry_after} s", headers={"Retry-After": str(decision.retry_after)})

    if not policy.allows(caller.scopes):
        kind = "one of" if policy.any_of and len(policy.scopes) > 1 else "the scope(s)"
        raise InsufficientScope(
            f"this endpoint needs {kind} {', '.join(policy.scopes)}; check GET /whoami for the "
            "scopes this key holds",
            details={"required": list(policy.scopes), "held": sorted(caller.scopes)}
            | ({"any_of": True} if policy.any_of else {}))
    if policy.needs_mapped_properties and not caller.has_mapped_properties:
        raise NoMappedProperties(
            f"partner {caller.partner_code} has no mapped properties in the "
            f"{caller.environment} environment")
