"""`error_responses` documents a view's failure statuses without wrapping the view (one call
layer less per status on every request): the description must still list each of them, and the
view must still run behind its guards exactly as before."""

from __future__ import annotations

from connectivity.web.error_responses import ERROR_DESCRIPTIONS, error_responses
from connectivity.handshake.routes import blp as handshake_blp

API = "/api/connectivity/v1"
ENVELOPE = {"$ref": "#/components/schemas/ErrorEnvelope"}


def test_each_documented_status_is_in_the_description(client):
    spec = client.get(f"{API}/openapi.json").get_json()
    for path in (f"{API}/ping", f"{API}/whoami"):
        responses = spec["paths"][path]["get"]["responses"]
        # 403 and 422: what the X-Sandbox-Scenario header alone can cause there (contract 11.4)
        assert set(responses) == {"200", "401", "403", "422", "429", "503", "default"}
        for status in (401, 429, 503):
            documented = responses[str(status)]
            assert documented["description"] == ERROR_DESCRIPTIONS[status]
            assert documented["content"]["application/json"]["schema"] == ENVELOPE


def test_the_view_is_documented_not_wrapped():
    def view():
        return "answer"

    documented = error_responses(handshake_blp, 503, 401, 401)(view)
    assert documented is view
    assert documented() == "answer"
    responses = view._apidoc["response"]["responses"]
    assert sorted(responses) == [401, 503]


def test_a_guarded_view_still_answers_behind_its_guards(client, issue, catalog):
    assert client.get(f"{API}/ping").status_code == 401
    bearer = {"Authorization": f"Bearer {issue('pull').token}"}
    response = client.get(f"{API}/ping", headers=bearer)
    assert response.status_code == 200
    assert response.get_json()["data"]["pong"] is True
