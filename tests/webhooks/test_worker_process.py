"""The Procfile's `webhooks` process, end to end: an operator pauses a hotel, the event reaches
the partner's endpoint signed, after a receiver that failed first recovers; SIGTERM stops the
process cleanly."""

from __future__ import annotations

import signal

from standardwebhooks import Webhook

from devtools.webhook_receiver import receiver
from tests.support.live_service import webhook_worker  # noqa: F401 - a fixture
from tests.webhooks.conftest import created


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
