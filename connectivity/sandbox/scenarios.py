"""The catalogue of sandbox scenarios and the check each guarded operation runs once routing,
authentication, rate limit, scope and the field rules have passed (the view's innermost layer,
installed by `auth.access.requires`)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from flask import current_app, g, request

from connectivity.web.errors import ApiError, RateLimited, ServiceUnavailable, ValidationFailed

HEADER = "X-Sandbox-Scenario"
_ENVIRON_KEY = "HTTP_X_SANDBOX_SCENARIO"

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
# Honoured by every guarded operation but /ping and /whoami.
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


def header_field_errors() -> dict[str, list[str]]:
    """The header's own failure, for a 422 the body's field rules raised first: the answer then
    names every failing field, the header included (a sandbox key's request only)."""
    value = request.environ.get(_ENVIRON_KEY)
    caller = g.get("caller")
    if value is None or caller is None or caller.environment != "sandbox":
        return {}
    honoured = getattr(current_app.view_functions.get(request.endpoint), "sandbox_scenarios",
                       None)
    if honoured is None or value in honoured:
        return {}
    return {HEADER: _not_honoured(value, honoured)}


def current_scenario() -> str | None:
    """The scenario the running request forces (set once the check passed), else None."""
    return g.get("sandbox_scenario")


def honour(view: Callable, forced: Mapping[str, Callable], faults: bool) -> Callable:
    """`view` wrapped by the scenario check. `forced` maps the operation's own scenarios to a
    function taking the view's arguments and answering in its place; `faults` adds FAULTS.
    A scenario mapped to None is honoured by the view itself, which reads `current_scenario()`
    (the ARI pushes store the scenario with the batch)."""
    unknown = [v for v in forced if v not in SCENARIOS]
    if unknown:
        raise ValueError(f"unknown sandbox scenario(s) {unknown}")
    honoured = tuple(v for v in SCENARIOS if v in forced or (faults and v in FAULTS))

    @functools.wraps(view)
    def check(*args, **kwargs):
        value = request.environ.get(_ENVIRON_KEY)
        if value is None:
            return view(*args, **kwargs)
        if g.caller.environment != "sandbox":
            raise SandboxOnly(f"{HEADER} is honoured for sandbox keys only; this key is a "
                              f"{g.caller.environment} key: send the request without it")
        if value not in honoured:
            raise ValidationFailed({HEADER: _not_honoured(value, honoured)})
        if value in FAULTS and value not in forced:
            raise _forced_fault(value)
        g.sandbox_scenario = value
        answer = forced[value]
        return (answer or view)(*args, **kwargs)

    check.sandbox_scenarios = honoured
    return check
