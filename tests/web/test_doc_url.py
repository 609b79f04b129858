"""`error.doc_url` is an absolute link a client can follow: the request's own origin (its scheme
and Host), or PUBLIC_BASE_URL when set (behind a proxy that changes either)."""

from __future__ import annotations

import pytest

from connectivity.settings import Settings, SettingsError

API = "/api/connectivity/v1"
ENV = {"DATABASE_URL": "postgresql://x", "REDIS_URL": "redis://x", "SECRET_KEY": "k" * 32}


def doc_url(answer) -> str:
    return answer.get_json()["error"]["doc_url"]


def test_from_the_requests_host_and_scheme(client):
    assert doc_url(client.get(f"{API}/nope")) == f"http://localhost{API}/docs#error-not_found"
    answer = client.get(f"{API}/ping", headers={"Host": "sandbox.partner.example:8443"},
                        base_url="https://sandbox.partner.example:8443")
    assert doc_url(answer) == (f"https://sandbox.partner.example:8443{API}/docs"
                               "#error-missing_credentials")


def test_from_public_base_url_whatever_the_host(make_app):
    app = make_app(public_base_url="https://api.example.com/pcs")
    answer = app.test_client().delete(f"{API}/ping", headers={"Host": "10.0.0.7:8000"})
    assert doc_url(answer) == f"https://api.example.com/pcs{API}/docs#error-method_not_allowed"


def test_the_setting_is_read_checked_and_its_trailing_slash_dropped():
    assert Settings.from_env(ENV).public_base_url is None
    assert Settings.from_env({**ENV, "PUBLIC_BASE_URL": "https://api.example.com/"}
                             ).public_base_url == "https://api.example.com"
    for bad in ("api.example.com", "ftp://api.example.com", "https://", "https://a.example/?x=1",
                "https://a.example/#top"):
        with pytest.raises(SettingsError, match="PUBLIC_BASE_URL"):
            Settings.from_env({**ENV, "PUBLIC_BASE_URL": bad})
