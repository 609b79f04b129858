"""The Procfile's `webhooks` process, end to end: an operator pauses a hotel, the event reaches
the partner's endpoint signed, after a receiver that failed first recovers; SIGTERM stops the
process cleanly, within 10 s even while a receiver trickles its answer."""

from __future__ import annotations

import signal
import subprocess
import time

from standardwebhooks import Webhook

from devtools.webhook_receiver import receiver
from tests.support.live_service import webhook_worker  # noqa: F401 - a fixture
from tests.support.envelope import assert_envelope_success
from tests.webhooks.conftest import ENDPOINTS, created


def test_the_process_delivers_an_operators_pause_retrying_a_failing_receiver(
        app, client, pull, webhook_worker):  # noqa: F811
    with receiver(answer=lambda n: 500 if n == 0 else 200) as hook:
        secret = created(client, pull, hook.url, ["mapping.paused"])["secret"]
        with app.app_context():
            result = app.test_cli_runner().invoke(args=[
                "distribution", "pause", "--partner", "acme", "--property", "LIS1"])
        assert result.exit_code == 0, result.output
        first, second = hook.wait_for(2)
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    event = Webhook(secret).verify(second.body, second.headers)
    assert (event["type"], event["data"]) == ("mapping.paused", {"hotel_code": "ACME-LIS"})
    webhook_worker.send_signal(signal.SIGTERM)
    assert webhook_worker.wait(30) == 0


def test_sigterm_ends_an_attempt_to_a_trickling_receiver_within_10_s(
        client, pull, webhook_worker):  # noqa: F811
    """A receiver that answers a byte a second for a minute: the process, told to stop while
    the attempt runs, ends it and exits within the contract's 10 s (and the margin of a
    recording and of the interpreter's exit)."""
    with receiver(trickle=60) as slow:
        endpoint_id = created(client, pull, slow.url)["endpoint"]["endpoint_id"]
        assert_envelope_success(client.post(f"{ENDPOINTS}/{endpoint_id}/ping", headers=pull),
                                202)
        slow.wait_for(1, timeout=30)
        assert slow.open_now()
        webhook_worker.send_signal(signal.SIGTERM)
        told = time.monotonic()
        try:
            code = webhook_worker.wait(15)
        except subprocess.TimeoutExpired:
            code = None
        stopped = time.monotonic() - told
        with slow.arrived:
            slow.arrived.wait_for(lambda: not slow.open_now(), timeout=5)
        (connection,) = slow.connections
    assert code == 0, f"still running {stopped:.1f} s after SIGTERM"
    assert connection.end is not None and connection.end - connection.start <= 11
