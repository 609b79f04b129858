"""Webhooks are a way to make the service send requests: the URL rules (contract 12.3) are a
security boundary, checked at creation and again at every delivery, with the connection made to
the address that was checked. The names below resolve through the senders' resolver seam (the
service's own code, webhooks/destination.py), so a test decides what a name answers at
delivery time; a name the system cannot resolve at all shows that nothing resolved it again.
A refusal never tells the partner what a name resolved to, nor whether it resolved: the same
words for every host that is not public. Loopback, the service's own machine, is refused unless
the operator allows it (WEBHOOK_ALLOW_LOOPBACK), as these tests' receivers need."""

from __future__ import annotations

import pytest

from connectivity.auth.credentials import SigningVault
from connectivity.webhooks.delivering import Senders
from devtools.webhook_receiver import receiver
from tests.support.certificates import certificates
from tests.support.envelope import API, assert_envelope_failure, assert_envelope_success
from tests.webhooks.delivery import delivery_rows, record_event, run_rounds

ENDPOINTS = f"{API}/webhook-endpoints"
NAME = "hooks.partner.test"
REFUSED = (f"refused by the URL rules: the host {NAME!r} is not a public address, nor a name "
           "that resolves only to public addresses")


class Answers:
    """A resolver whose answer the test sets, counting the lookups."""

    def __init__(self):
        self.addresses: list[str] = []
        self.lookups: list[tuple[str, int]] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append((host, port))
        return list(self.addresses)  # none: the name does not resolve


@pytest.fixture
def answers():
    return Answers()


@pytest.fixture
def senders(db, settings, answers):
    made = Senders(db, SigningVault(settings.secret_key), (1,), concurrency=4, per_endpoint=2,
                   resolver=answers, allow_loopback=True)
    yield made
    made.close()


def _endpoint_at(client, db, headers, url_now: str, created_with: str) -> str:
    """An endpoint created with a URL the rules accept, whose URL is then `url_now`: as if its
    name had answered a public address at creation and answers otherwise now (DNS
    rebinding)."""
    endpoint_id = assert_envelope_success(client.post(ENDPOINTS, headers=headers, json={
        "url": created_with, "event_types": ["mapping.paused"]}), 201)["endpoint"]["endpoint_id"]
    db.run(lambda conn: conn.execute("UPDATE webhook_endpoints SET url = %s WHERE id = %s",
                                     (url_now, endpoint_id)))
    return endpoint_id


def _one_attempt(db, senders) -> dict:
    record_event(db, "mapping.paused", data={"hotel_code": "ACME-LIS"})
    run_rounds(db, senders, lambda: delivery_rows(db)
               and delivery_rows(db)[0]["attempts"] == 1
               and delivery_rows(db)[0]["last_error"] is not None)
    return delivery_rows(db)[0]


@pytest.mark.parametrize("addresses", [
    ["10.0.0.5"], ["169.254.169.254"], ["::ffff:10.0.0.5"], ["0.0.0.0"], ["fd12::1"],
    ["127.0.0.1", "192.168.0.10"],   # every address is checked
    ["93.184.216.34", "10.0.0.5"],
])
def test_a_name_resolving_to_an_internal_address_at_delivery_is_refused(
        client, db, keys, senders, answers, addresses):
    with receiver() as hook:
        port = hook.url.split(":")[2].split("/")[0]
        _endpoint_at(client, db, keys.acme_push, f"http://{NAME}:{port}/hook", hook.url)
        answers.addresses = addresses
        row = _one_attempt(db, senders)
    assert hook.received == []
    # Said as for any host that is not public: what the name resolved to is not told.
    assert (row["last_error"], row["last_status_code"]) == (REFUSED, None)
    assert row["status"] == "pending"  # retried: the name may answer otherwise later


def test_the_connection_goes_to_the_checked_address_with_the_name_as_host(
        client, db, keys, senders, answers):
    with receiver() as hook:
        port = hook.url.split(":")[2].split("/")[0]
        _endpoint_at(client, db, keys.acme_push, f"http://{NAME}:{port}/hook?x=1", hook.url)
        answers.addresses = ["127.0.0.1"]
        record_event(db, "mapping.paused", data={"hotel_code": "ACME-LIS"})
        run_rounds(db, senders, lambda: len(hook.received) == 1)
    (request,) = hook.received
    assert request.headers["host"] == f"{NAME}:{port}" and request.path == "/hook?x=1"
    # Looked up once, by the check; the system's resolver, which knows no such name, was never
    # asked (the request would have failed).
    assert answers.lookups == [(NAME, int(port))]


def test_a_name_that_stops_resolving_fails_the_attempt_as_an_internal_one_does(
        client, db, keys, senders, answers):
    # The same words: a partner cannot tell the names the service's DNS knows from the others.
    _endpoint_at(client, db, keys.acme_push, f"http://{NAME}/hook", "http://127.0.0.1:8080/hook")
    row = _one_attempt(db, senders)
    assert row["last_error"] == REFUSED


@pytest.mark.parametrize("environment, allowed", [
    ("sandbox", False), ("production", False), ("production", True)])
def test_loopback_is_refused_at_delivery_unless_allowed_for_a_sandbox_key(
        client, db, keys, settings, answers, environment, allowed):
    """Loopback is the service's own machine: a delivery goes there only for a sandbox key, and
    only where WEBHOOK_ALLOW_LOOPBACK is on (the other position is
    test_the_connection_goes_to_the_checked_address_with_the_name_as_host)."""
    senders = Senders(db, SigningVault(settings.secret_key), (1,), concurrency=2, per_endpoint=1,
                      resolver=answers, allow_loopback=allowed)
    try:
        with receiver() as hook:
            port = hook.url.split(":")[2].split("/")[0]
            key, hotel = ((keys.acme_push, "ACME-LIS") if environment == "sandbox"
                          else (keys.prod_push, "ACME-MAD"))
            scheme = "http" if environment == "sandbox" else "https"
            _endpoint_at(client, db, key, f"{scheme}://{NAME}:{port}/hook",
                         "https://93.184.216.34/hook")
            answers.addresses = ["127.0.0.1"]
            record_event(db, "mapping.paused", environment=environment,
                         data={"hotel_code": hotel})
            run_rounds(db, senders, lambda: delivery_rows(db)
                       and delivery_rows(db)[0]["last_error"] is not None)
    finally:
        senders.close()
    assert hook.received == []
    assert delivery_rows(db)[0]["last_error"] == REFUSED


def test_a_production_endpoint_with_an_http_url_is_refused_at_delivery(
        client, db, keys, senders, answers):
    _endpoint_at(client, db, keys.prod_push, "http://93.184.216.34/hook",
                 "https://93.184.216.34/hook")
    record_event(db, "mapping.paused", environment="production",
                 data={"hotel_code": "ACME-MAD"})
    run_rounds(db, senders, lambda: delivery_rows(db)
               and delivery_rows(db)[0]["last_error"] is not None)
    assert "https URL is required" in delivery_rows(db)[0]["last_error"]


def test_production_creation_refuses_internal_destinations(client, keys):
    for url in (
        "https://169.254.169.254/latest/meta-data/", "https://[fe80::1%25eth0]/",
        "https://10.0.0.1/", "https://localhost/", "https://LOCALHOST./",
        "https://app.localhost/", "https://[::1]/", "https://127.0.0.1/", "https://0/",
        "https://2130706433/", "https://0x7f000001/", "https://[::ffff:127.0.0.1]/",
        "https://[64:ff9b::7f00:1]/", "https://100.100.100.200/", "https://[2002:7f00:1::]/",
        "https://255.255.255.255/", "http://93.184.216.34/",
    ):
        error = assert_envelope_failure(client.post(ENDPOINTS, headers=keys.prod_push, json={
            "url": url, "event_types": ["mapping.paused"]}), 422, "validation_failed")
        assert list(error["details"]["fields"]) == ["url"], url
        (message,) = error["details"]["fields"]["url"]
        # "0", "2130706433" and "0x7f000001" are names the system resolves to 127.0.0.1 and
        # 0.0.0.0: never said.
        if url.startswith("https://"):
            assert message.endswith("is not a public address, nor a name that resolves only to "
                                    "public addresses"), (url, message)
        for resolved in ("127.0.0.1", "0.0.0.0"):
            assert resolved in url or resolved not in message, (url, message)


@pytest.mark.parametrize("certified_for, delivered", [(NAME, True), ("other.test", False)])
def test_https_to_the_checked_address_verifies_the_urls_hostname(
        client, db, keys, settings, answers, tmp_path, certified_for, delivered):
    """The connection goes to the address checked, and TLS is verified for the URL's hostname
    (sent as SNI): a certificate for another name is refused although the address is right."""
    server_tls, client_tls = certificates(tmp_path, certified_for)
    senders = Senders(db, SigningVault(settings.secret_key), (1,), concurrency=2, per_endpoint=1,
                      resolver=answers, allow_loopback=True, tls=client_tls)
    try:
        with receiver(tls=server_tls) as hook:
            port = hook.url.split(":")[2].split("/")[0]
            _endpoint_at(client, db, keys.acme_push, f"https://{NAME}:{port}/hook",
                         "http://127.0.0.1:8080/hook")
            answers.addresses = ["127.0.0.1"]
            record_event(db, "mapping.paused", data={"hotel_code": "ACME-LIS"})
            run_rounds(db, senders, lambda: delivery_rows(db)
                       and delivery_rows(db)[0]["attempts"] >= 1
                       and (delivery_rows(db)[0]["status"] == "delivered"
                            or delivery_rows(db)[0]["last_error"] is not None))
    finally:
        senders.close()
    row = delivery_rows(db)[0]
    if delivered:
        assert row["status"] == "delivered"
        assert hook.received[0].headers["host"] == f"{NAME}:{port}"
    else:
        assert row["status"] == "pending" and hook.received == []
        assert "CERTIFICATE_VERIFY_FAILED" in row["last_error"] or "certificate" in \
            row["last_error"].lower(), row["last_error"]
