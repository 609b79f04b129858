"""An attempt has 10 s in all, from connecting to the answer's last header byte, however slowly
the receiver sends it (contract 12.3): a receiver that answers `HTTP/1.1 200 OK` and then one
header byte a second is cut at the deadline and the attempt recorded as a timeout; an answer
that ends within it delivers. Real receivers on loopback, trickling for real."""

from __future__ import annotations

import time

from connectivity.auth.credentials import SigningVault
from connectivity.webhooks.delivering import Senders
from connectivity.webhooks.sender import ATTEMPT_SECONDS, attempt_delivery
from connectivity.webhooks.signature import new_webhook_secret
from devtools.webhook_receiver import receiver
from tests.support.certificates import certificates
from tests.support.envelope import assert_envelope_success
from tests.webhooks.conftest import ENDPOINTS, created
from tests.webhooks.delivery import delivery_rows, run_rounds

NAME = "hooks.partner.test"


def _attempt(url: str, **options):
    started = time.monotonic()
    attempt = attempt_delivery(url, "sandbox", new_webhook_secret(), "evt_trickle", b"{}",
                               allow_loopback=True, **options)
    return attempt, time.monotonic() - started


def test_a_byte_a_second_for_longer_than_10_s_is_cut_at_10_s_as_a_timeout():
    assert ATTEMPT_SECONDS == 10
    with receiver(trickle=20) as slow:
        attempt, took = _attempt(slow.url)
    assert (attempt.delivered, attempt.status_code) == (False, None)
    assert attempt.error.startswith("timed out: no complete answer within 10 s")
    # The deadline is the attempt's, not each read's: cut at 10 s, not at the trickle's end
    # (20 s), nor 10 s after its last byte.
    assert 10 <= took < 12, took


def test_an_answer_trickled_within_the_deadline_delivers():
    with receiver(trickle=3) as slow:
        attempt, took = _attempt(slow.url)
    assert (attempt.delivered, attempt.status_code, attempt.error) == (True, 200, None)
    assert 3 <= took < ATTEMPT_SECONDS


def test_over_tls_the_deadline_holds_as_well(tmp_path):
    """TLS records trickled a byte at a time: the same deadline (here 3 s, to be brief)."""
    server_tls, client_tls = certificates(tmp_path, NAME)
    with receiver(trickle=10, tls=server_tls) as slow:
        port = slow.url.split(":")[2].split("/")[0]
        attempt, took = _attempt(f"https://{NAME}:{port}/hook", seconds=3, tls=client_tls,
                                 resolver=lambda host, port: ["127.0.0.1"])
    assert attempt.error.startswith("timed out: no complete answer within 3 s"), attempt
    assert 3 <= took < 5, took


def test_the_worker_records_a_trickle_as_a_timed_out_attempt(client, pull, db, settings):
    senders = Senders(db, SigningVault(settings.secret_key), (60,), concurrency=2,
                      per_endpoint=1, allow_loopback=True, attempt_seconds=2)
    try:
        with receiver(trickle=15) as slow:
            endpoint_id = created(client, pull, slow.url)["endpoint"]["endpoint_id"]
            # A ping: due at once, whatever holds the event log's horizon back.
            assert_envelope_success(client.post(f"{ENDPOINTS}/{endpoint_id}/ping",
                                                headers=pull), 202)
            run_rounds(db, senders, lambda: delivery_rows(db)
                       and delivery_rows(db)[0]["last_error"] is not None)
            # The receiver sees the connection end once it writes after the cut.
            slow.wait_for(1)
            with slow.arrived:
                slow.arrived.wait_for(lambda: not slow.open_now(), timeout=5)
            (connection,) = slow.connections
    finally:
        senders.close()
    (row,) = delivery_rows(db)
    assert (row["status"], row["attempts"], row["last_status_code"]) == ("pending", 1, None)
    assert row["last_error"] == "timed out: no complete answer within 2 s (ReadTimeout)"
    assert connection.end is not None and connection.end - connection.start < 5
