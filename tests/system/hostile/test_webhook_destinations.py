"""Webhooks are a way to make the service send requests: the URL rules (contract 12.3) are a
security boundary, checked at creation and again at every delivery, with the connection made to
the address that was checked. The names below resolve through the senders' resolver seam (the
service's own code, webhooks/destination.py), so a test decides what a name answers at
delivery time; a name the system cannot resolve at all shows that nothing resolved it again."""

from __future__ import annotations

import datetime as dt
import ssl

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from connectivity.auth.credentials import SigningVault
from connectivity.webhooks.delivering import Senders
from connectivity.webhooks.destination import RefusedDestination
from devtools.webhook_receiver import receiver
from tests.support.envelope import API, assert_envelope_failure, assert_envelope_success
from tests.webhooks.delivery import delivery_rows, record_event, run_rounds

ENDPOINTS = f"{API}/webhook-endpoints"
NAME = "hooks.partner.test"


class Answers:
    """A resolver whose answer the test sets, counting the lookups."""

    def __init__(self):
        self.addresses: list[str] = []
        self.lookups: list[tuple[str, int]] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append((host, port))
        if not self.addresses:
            raise RefusedDestination(f"the host {host!r} does not resolve")
        return list(self.addresses)


@pytest.fixture
def answers():
    return Answers()


@pytest.fixture
def senders(db, settings, answers):
    made = Senders(db, SigningVault(settings.secret_key), (1,), concurrency=4, per_endpoint=2,
                   resolver=answers)
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


@pytest.mark.parametrize("addresses, why", [
    (["10.0.0.5"], "a private address"),
    (["169.254.169.254"], "a link-local address"),
    (["127.0.0.1", "192.168.0.10"], "a private address"),   # every address is checked
    (["::ffff:10.0.0.5"], "a private address"),
    (["0.0.0.0"], "an unspecified address"),
    (["fd12::1"], "a private address"),
])
def test_a_name_resolving_to_an_internal_address_at_delivery_is_refused(
        client, db, keys, senders, answers, addresses, why):
    with receiver() as hook:
        port = hook.url.split(":")[2].split("/")[0]
        _endpoint_at(client, db, keys.acme_push, f"http://{NAME}:{port}/hook", hook.url)
        answers.addresses = addresses
        row = _one_attempt(db, senders)
    assert hook.received == []
    assert row["last_error"].startswith("refused by the URL rules: ")
    assert why in row["last_error"] and row["last_status_code"] is None
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


def test_a_name_that_stops_resolving_fails_the_attempt_saying_so(
        client, db, keys, senders, answers):
    _endpoint_at(client, db, keys.acme_push, f"http://{NAME}/hook", "http://127.0.0.1:9/hook")
    row = _one_attempt(db, senders)
    assert "does not resolve" in row["last_error"]


def test_a_production_endpoint_resolving_to_loopback_is_refused(
        client, db, keys, senders, answers):
    _endpoint_at(client, db, keys.prod_push, f"https://{NAME}/hook",
                 "https://93.184.216.34/hook")
    answers.addresses = ["127.0.0.1"]
    record_event(db, "mapping.paused", environment="production",
                 data={"hotel_code": "ACME-MAD"})
    run_rounds(db, senders, lambda: delivery_rows(db)
               and delivery_rows(db)[0]["last_error"] is not None)
    assert "a loopback address" in delivery_rows(db)[0]["last_error"]


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


def _certificates(tmp_path, name: str):
    """A CA of the test's own, and a server certificate it signed for `name`: (the server's TLS
    context, a client context trusting the CA)."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.timezone.utc)

    def certificate(subject: str, issuer: str, public_key, ca: bool, san: str | None):
        builder = (x509.CertificateBuilder()
                   .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
                   .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
                   .public_key(public_key).serial_number(x509.random_serial_number())
                   .not_valid_before(now - dt.timedelta(minutes=5))
                   .not_valid_after(now + dt.timedelta(hours=1))
                   .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
        if san is not None:
            builder = builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(san)]),
                                            critical=False)
        return builder.sign(key, hashes.SHA256())
    ca = certificate("test CA", "test CA", key.public_key(), True, None)
    leaf = certificate(name, "test CA", key.public_key(), False, name)
    pem = serialization.Encoding.PEM
    (tmp_path / "leaf.pem").write_bytes(leaf.public_bytes(pem))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(
        pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(tmp_path / "leaf.pem", tmp_path / "key.pem")
    client = ssl.create_default_context(cadata=ca.public_bytes(pem).decode())
    return server, client


@pytest.mark.parametrize("certified_for, delivered", [(NAME, True), ("other.test", False)])
def test_https_to_the_checked_address_verifies_the_urls_hostname(
        client, db, keys, settings, answers, tmp_path, certified_for, delivered):
    """The connection goes to the address checked, and TLS is verified for the URL's hostname
    (sent as SNI): a certificate for another name is refused although the address is right."""
    server_tls, client_tls = _certificates(tmp_path, certified_for)
    senders = Senders(db, SigningVault(settings.secret_key), (1,), concurrency=2, per_endpoint=1,
                      resolver=answers, tls=client_tls)
    try:
        with receiver(tls=server_tls) as hook:
            port = hook.url.split(":")[2].split("/")[0]
            _endpoint_at(client, db, keys.acme_push, f"https://{NAME}:{port}/hook",
                         "http://127.0.0.1:9/hook")
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
