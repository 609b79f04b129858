"""What a caller may do: each versioned route declares its access policy with `@requires`, and
`guard_request` enforces, in this order, authentication (401), the key's rate limit (429), the
route's scopes (403 insufficient_scope) and the partner's mapped properties (403
no_mapped_properties). A route under the API prefix without a policy stops the app at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass

import structlog
from flask import Flask, current_app, g, request

from connectivity.web.errors import InsufficientScope, NoMappedProperties, RateLimited
from connectivity.web.forced_outcomes import forcible
from connectivity.store.read_fence import request_fence
from connectivity.auth.authenticate import Caller
from connectivity.auth.scopes import SCOPES
from connectivity.web.services import services_of


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
    """Declare a route's access policy. Place it under `@blp.route` (closest to the function).

    The view so declared runs behind the forced-outcome check (web/forced_outcomes.py), its
    innermost layer: an `X-Sandbox-Scenario` header is judged once every check before the
    operation, its field rules included, has passed."""
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown:
        raise ValueError(f"unknown scope(s) {unknown}")
    policy = AccessPolicy(tuple(scopes), any_of, needs_mapped_properties)

    def mark(view):
        view = forcible(view)
        view.access_policy = policy
        return view
    return mark


def policy_of(endpoint: str | None, app: Flask | None = None) -> AccessPolicy | None:
    views = (app if app is not None else current_app).view_functions
    return getattr(views.get(endpoint) if endpoint else None, "access_policy", None)


def current_caller() -> Caller:
    return g.caller


def current_read_fence() -> bytes | None:
    """The read fence's token as this request read it (None: Redis did not answer, or the
    token was lost): what the read copies compare with theirs (store/read_fence.py)."""
    return g.get("read_fence")


def guard_request() -> None:
    """before_request: a no-op for unmatched routes (routing answers 404/405 first, whatever the
    credentials) and for public routes (health, docs)."""
    # `request`, `current_app` and `g` are context-local proxies: each use looks the object up
    # again, so the hook resolves them once.
    req = request._get_current_object()
    if req.routing_exception is not None:
        return
    app = current_app._get_current_object()
    policy = policy_of(req.endpoint, app)
    if policy is None:
        return
    guards = services_of(app).guards
    authentication = guards.authenticator.authenticate(req)
    row = authentication.row
    structlog.contextvars.bind_contextvars(key_id=row["key_id"], partner=row["partner_code"])

    # The rate limit's round trip also reads the key-state generation, which confirms (or not)
    # a cached copy of the key's row (auth/keycache.py), and the read fence, which tells the
    # read copies whether they must catch up before answering (store/read_fence.py).
    decision, (generation, fence) = guards.rate_limiter.hit(
        row["key_id"], row["rate_limit_per_minute"],
        read=(guards.key_generation.key, guards.read_fence.key))
    if decision.shared:  # Redis answered, and lost what it has not: copies wait for new ones
        if generation is None:
            guards.key_generation.establish()
        if fence is None:
            guards.read_fence.establish()
    caller = guards.authenticator.confirm(req, authentication, generation)
    state = g._get_current_object()
    state.caller = caller
    state.read_fence = fence
    request_fence.set(fence)
    state.rate_limit = decision
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
