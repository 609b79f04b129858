"""Forced outcomes: the extension point through which a plug-in lets a request force the outcome
of a guarded API operation, asked for with the `X-Sandbox-Scenario` header (contract 11.4).

The web layer knows the header and where the plug-in is registered (`register`), nothing of what
a value means. The plug-in is asked at three points:
- the guarded view's innermost layer (`forcible`, installed by `auth.access.requires`), once
  every other check has passed: it refuses the request, answers in the view's place, or lets the
  view honour the value itself (the view reads `forced_outcome()`);
- the API's 422 answer (api.py), which names the header's own failure with the body's
  (`field_errors`);
- the OpenAPI description, through the apispec plugin the composition root hands `init_api`.

With no plug-in registered the header forces nothing: every operation answers as if it were not
sent, and the description does not mention it. The service's app always registers the sandbox
(app.py)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Protocol

from flask import Flask, current_app, g, request

# The header is part of the wire contract: messages naming it take the name from here.
HEADER = "X-Sandbox-Scenario"
_ENVIRON_KEY = "HTTP_X_SANDBOX_SCENARIO"
EXTENSION = "connectivity.forced_outcomes"


class ForcedOutcomes(Protocol):
    """What a plug-in provides. `endpoint` is the Flask endpoint of the running operation,
    `value` the header as sent."""

    def resolve(self, endpoint: str, value: str) -> Callable | None:
        """Judge `value` once the operation's field rules have passed: raise the refusal (or
        the forced failure), return the function answering in the view's place (it takes the
        view's arguments), or None when the view honours the value itself."""

    def field_errors(self, endpoint: str | None, value: str) -> dict[str, list[str]]:
        """The header's own failure as a failing field, for a 422 the field rules raised
        first; {} when the header does not fail."""


def register(app: Flask, outcomes: ForcedOutcomes) -> None:
    app.extensions[EXTENSION] = outcomes


def forcible(view: Callable) -> Callable:
    """`view` behind the plug-in's judgement of the header. A request without the header (every
    production request) pays one dict lookup."""

    @functools.wraps(view)
    def check(*args, **kwargs):
        value = request.environ.get(_ENVIRON_KEY)
        if value is None:
            return view(*args, **kwargs)
        outcomes = current_app.extensions.get(EXTENSION)
        if outcomes is None:
            return view(*args, **kwargs)
        answer = outcomes.resolve(request.endpoint, value)
        g.forced_outcome = value
        return (answer or view)(*args, **kwargs)

    return check


def forced_outcome() -> str | None:
    """The outcome the running request forces, once the plug-in accepted it; else None."""
    return g.get("forced_outcome")


def field_errors() -> dict[str, list[str]]:
    value = request.environ.get(_ENVIRON_KEY)
    if value is None:
        return {}
    outcomes = current_app.extensions.get(EXTENSION)
    if outcomes is None:
        return {}
    return outcomes.field_errors(request.endpoint, value)
