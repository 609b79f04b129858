"""The catalogue of sandbox scenarios and the sandbox as the app's forced-outcome plug-in
(web/forced_outcomes.py): its judgement of the `X-Sandbox-Scenario` header, which each guarded
operation asks for once routing, authentication, rate limit, scope and the field rules have
passed."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from flask import Flask, g

from connectivity.auth.access import current_caller, policy_of
from connectivity.web.errors import ApiError, RateLimited, ServiceUnavailable, ValidationFailed
from connectivity.web.forced_outcomes import HEADER

# Every value, in the contract's order, with what it forces.
SCENARIOS = {
    "sold_out": "search: every hotel `available: false`; rates: every plan `sellable: false` "
                "with reason `sold_out`; quote and booking: 409 `sold_out`",
    "price_changed": "quote: 200 with the total 10% higher and a token for it; booking: 409 "
                     "`price_mismatch` with `details` 10% higher than the request's",
    "quote_expired": "409 `quote_expired`",
    "penalty_exceeds_expectation": "409 `penalty_exceeds_expectation`, the booking untouched",
    "rate_limited": "429 `rate_limited`, `Retry-After: 1` (the request counts against the quota)",
    "service_unavailable": "503 `service_unavailable`, `Retry-After: 1`",
    "internal_error": "500 `internal_error`",
    "partially_applied": "stored and applied for real, except item 0, rejected with code "
                         "`sandbox_scenario`; status `partially_applied`",
    "delayed_apply": "stored, then applied for real no sooner than 10 s after acceptance "
                     "(status stays `queued` meanwhile)",
}
# Honoured by every guarded operation that needs the partner's mapped properties, i.e. all but
# /ping and /whoami.
FAULTS = ("rate_limited", "service_unavailable", "internal_error")


class SandboxOnly(ApiError):
    code = "sandbox_only"


def _forced_fault(value: str) -> ApiError:
    message = f"forced by {HEADER}: {value}"
    if value == "rate_limited":
        return RateLimited(message + "; retry after 1 s", headers={"Retry-After": "1"})
    if value == "service_unavailable":
        return ServiceUnavailable(message + "; retry after 1 s", retry_after=1)
    return ApiError(message)  # 500 internal_error


def _not_honoured(value: str, honoured: tuple[str, ...]) -> list[str]:
    allowed = ", ".join(honoured) if honoured else "none"
    what = ("is not a sandbox scenario" if value not in SCENARIOS
            else "is not a scenario of this operation")
    return [f"{value!r} {what}; this operation honours: {allowed}"]


class SandboxScenarios:
    """The scenarios of one app. `operations` maps an endpoint to its own scenarios, each to the
    function answering in the view's place (it takes the view's arguments), or to None when the
    view honours it itself, reading `forced_outcome()` (the ARI pushes store it with the
    batch)."""

    def __init__(self, app: Flask,
                 operations: Mapping[str, Mapping[str, Callable | None]]) -> None:
        unknown = sorted({v for own in operations.values() for v in own if v not in SCENARIOS})
        if unknown:
            raise ValueError(f"unknown sandbox scenario(s) {unknown}")
        self._app = app
        self._operations = operations

    def honoured(self, endpoint: str | None) -> tuple[str, ...] | None:
        """The values the operation honours, in the catalogue's order; None for a route that is
        not guarded (it never sees the header)."""
        policy = policy_of(endpoint, self._app)
        if policy is None:
            return None
        own = self._operations.get(endpoint, {})
        faults = policy.needs_mapped_properties
        return tuple(v for v in SCENARIOS if v in own or (faults and v in FAULTS))

    def resolve(self, endpoint: str, value: str) -> Callable | None:
        caller = current_caller()
        if caller.environment != "sandbox":
            raise SandboxOnly(f"{HEADER} is honoured for sandbox keys only; this key is a "
                              f"{caller.environment} key: send the request without it")
        honoured = self.honoured(endpoint)
        if value not in honoured:
            raise ValidationFailed({HEADER: _not_honoured(value, honoured)})
        own = self._operations.get(endpoint, {})
        if value in FAULTS and value not in own:
            raise _forced_fault(value)
        return own[value]

    def field_errors(self, endpoint: str | None, value: str) -> dict[str, list[str]]:
        """A sandbox key's value the operation does not honour; the header is not judged for
        other keys until the field rules pass (then 403 `sandbox_only`)."""
        caller = g.get("caller")
        if caller is None or caller.environment != "sandbox":
            return {}
        honoured = self.honoured(endpoint)
        if honoured is None or value in honoured:
            return {}
        return {HEADER: _not_honoured(value, honoured)}
