"""The URL rules at creation (contract 12.3): the ports refused, loopback only where the
operator allows it (WEBHOOK_ALLOW_LOOPBACK, both positions), and a refusal that says the host is
not a public address without saying what it resolved to. The same rules at delivery:
tests/system/hostile/test_webhook_destinations.py; the settings: below."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from connectivity.settings import Settings, SettingsError
from tests.support.envelope import assert_envelope_failure
from tests.webhooks.conftest import create, created

NOT_PUBLIC = "is not a public address, nor a name that resolves only to public addresses"


def refusal(client, headers, url: str) -> str:
    error = assert_envelope_failure(create(client, headers, url), 422, "validation_failed")
    assert list(error["details"]["fields"]) == ["url"], url
    (message,) = error["details"]["fields"]["url"]
    return message


def test_ports_below_1024_other_than_80_and_443_and_unusual_forms_are_refused(client, pull):
    for url in ("http://127.0.0.1:0/hook", "https://127.0.0.1:22/", "http://127.0.0.1:25/",
                "http://127.0.0.1:1023/", "https://127.0.0.1:00443/", "http://127.0.0.1:080/",
                "http://127.0.0.1:/hook", "http://[::1]:0/", "http://127.0.0.1:65536/",
                "https://93.184.216.34:22/", "http://127.0.0.1:+8080/"):
        message = refusal(client, pull, url)
        assert "port" in message.lower(), (url, message)
    for url in ("http://127.0.0.1:80/hook", "https://127.0.0.1:443/hook",
                "http://127.0.0.1:1024/hook", "http://127.0.0.1:65535/hook",
                "http://[::1]:8443/hook"):
        assert created(client, pull, url)["endpoint"]["url"] == url


def test_port_0_is_not_taken_for_the_schemes_port(client, pull):
    message = refusal(client, pull, "https://93.184.216.34:0/hook")
    assert message == ("the port must be 80, 443 or 1024-65535, written as a plain number "
                       "(not '0')")


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/hook", "http://localhost/hook",
                                 "https://[::1]:8443/hook", "http://127.1.2.3/",
                                 "http://[::ffff:127.0.0.1]:8080/"])
def test_loopback_is_refused_unless_the_operator_allows_it(client, pull, make_app, url):
    # On (the tests' settings, a local demo's): a sandbox key may.
    assert created(client, pull, url)["endpoint"]["url"] == url
    # Off (the default): the service's own machine is no partner's.
    host = url.split("//")[1].rsplit(":", 1)[0].split("/")[0].strip("[]")
    assert refusal(make_app(webhook_allow_loopback=False).test_client(), pull, url) == (
        f"the host {host!r} {NOT_PUBLIC}")


def test_a_refusal_never_says_what_a_name_resolved_to(client, pull, make_app):
    """This machine's own name resolves to one of its addresses, `localhost.` to loopback, a
    name under .invalid to nothing: each refused alike, no address named, so that a partner
    cannot map what the service's DNS knows."""
    off = make_app(webhook_allow_loopback=False).test_client()
    own = socket.gethostname()
    try:
        own_addresses = {info[4][0].split("%")[0] for info in socket.getaddrinfo(own, 80)}
    except OSError:
        own_addresses = set()
    # A machine whose name resolves to a public address only is reachable: not a case here.
    internal = not all(ipaddress.ip_address(a).is_global for a in own_addresses)
    for name in ([own] if internal else []) + ["localhost.", "no-such-host.invalid"]:
        message = refusal(off, pull, f"http://{name}:8080/hook")
        assert message == f"the host {name.rstrip('.')!r} {NOT_PUBLIC}", message
        for address in own_addresses | {"127.0.0.1", "::1"}:
            assert address not in message


ENV = {"DATABASE_URL": "postgresql://x/y", "REDIS_URL": "redis://x", "SECRET_KEY": "s" * 32}


def test_the_loopback_setting_is_off_unless_turned_on():
    assert Settings.from_env(ENV).webhook_allow_loopback is False
    for on in ("on", "ON", "true", "1", "yes"):
        assert Settings.from_env({**ENV, "WEBHOOK_ALLOW_LOOPBACK": on}).webhook_allow_loopback
    for off in ("off", "0", "false", "no", ""):
        assert not Settings.from_env({**ENV, "WEBHOOK_ALLOW_LOOPBACK": off}
                                     ).webhook_allow_loopback
    with pytest.raises(SettingsError, match="WEBHOOK_ALLOW_LOOPBACK"):
        Settings.from_env({**ENV, "WEBHOOK_ALLOW_LOOPBACK": "sometimes"})


def test_a_partners_share_of_the_senders():
    settings = Settings.from_env(ENV)
    assert (settings.webhook_worker_concurrency, settings.webhook_endpoint_concurrency,
            settings.webhook_partner_concurrency) == (32, 4, 8)
    assert Settings.from_env({**ENV, "WEBHOOK_WORKER_CONCURRENCY": "100"}
                             ).webhook_partner_concurrency == 25
    assert Settings.from_env({**ENV, "WEBHOOK_WORKER_CONCURRENCY": "4"}
                             ).webhook_partner_concurrency == 4
    for bad in ({"WEBHOOK_PARTNER_CONCURRENCY": "3"},   # less than one endpoint's
                {"WEBHOOK_PARTNER_CONCURRENCY": "33"}):  # more than the worker's
        with pytest.raises(SettingsError, match="WEBHOOK_PARTNER_CONCURRENCY"):
            Settings.from_env({**ENV, **bad})
