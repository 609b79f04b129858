"""The `X-Sandbox-Scenario` header in the OpenAPI description: on every guarded operation, with
exactly the values that operation honours and what each forces.

An apispec plugin (apispec's public plugin interface), handed to `init_api` by the composition
root: for each path flask-smorest documents, it asks the app's scenarios what the route's
endpoint honours."""

from __future__ import annotations

from apispec import BasePlugin

from connectivity.sandbox.scenarios import SCENARIOS, SandboxScenarios
from connectivity.web.forced_outcomes import HEADER


def header_parameter(values: tuple[str, ...]) -> dict:
    if values:
        listed = "\n".join(f"- `{v}`: {SCENARIOS[v]}" for v in values)
        description = ("Sandbox keys only (a production key sending it gets 403 `sandbox_only`): "
                       "forces an outcome to test error handling. Applied after authentication, "
                       "rate limit, scope and field rules; the answer is built from this "
                       "request and stores nothing unless said. For example `X-Sandbox-Scenario: "
                       f"{values[0]}`. Values for this operation:\n"
                       f"{listed}")
    else:
        description = ("Not honoured by this operation: a sandbox key sending it gets 422 "
                       "`validation_failed`, a production key 403 `sandbox_only`.")
    # No `example`: the docs page's "Try it out" would fill it in and force it on every try.
    schema = {"type": "string"}
    if values:
        schema["enum"] = list(values)
    return {"name": HEADER, "in": "header", "required": False, "schema": schema,
            "description": description}


ERROR_ENVELOPE = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}}
# The statuses the header itself can cause, listed on each operation that does not list them
# already (its own description of the status, when it has one, is kept).
HEADER_STATUSES = {
    "403": "`sandbox_only`: `X-Sandbox-Scenario` sent with a production key",
    "422": "`validation_failed`: `X-Sandbox-Scenario` is not a scenario of this operation "
           "(`details.fields` names the header)",
}


class SandboxScenarioPlugin(BasePlugin):
    def __init__(self, scenarios: SandboxScenarios) -> None:
        self._scenarios = scenarios

    def operation_helper(self, path=None, operations=None, rule=None, **kwargs):
        # `rule`: the werkzeug Rule flask-smorest documents (its `spec.path(rule=...)`).
        values = self._scenarios.honoured(rule.endpoint) if rule is not None else None
        if values is None:
            return
        for operation in (operations or {}).values():
            if not isinstance(operation, dict):
                continue
            operation.setdefault("parameters", []).append(header_parameter(values))
            responses = operation.setdefault("responses", {})
            listed = {str(status) for status in responses}
            statuses = dict(HEADER_STATUSES)
            if "internal_error" in values:
                statuses["500"] = ("`internal_error`: the service failed (quote the "
                                   "`request_id`), or forced by `X-Sandbox-Scenario`")
            for status, description in statuses.items():
                if status not in listed:
                    responses[status] = {"description": description, "content": ERROR_ENVELOPE}
