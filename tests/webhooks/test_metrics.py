"""The webhooks' figures on /metrics, read at scrape time from PostgreSQL: deliveries by
status, each endpoint's pending deliveries and the oldest one's age, endpoints disabled."""

from __future__ import annotations

from connectivity.auth.credentials import SigningVault
from connectivity.webhooks.delivering import Senders
from devtools.webhook_receiver import receiver
from tests.metrics.scrape import samples, value
from tests.webhooks.conftest import created
from tests.webhooks.delivery import delivery_rows, record_event, run_rounds


def _scrape(client) -> dict:
    return samples(client.get("/metrics").get_data(as_text=True))


def test_webhook_figures(client, pull, db, settings):
    senders = Senders(db, SigningVault(settings.secret_key), (1000,), concurrency=2,
                      per_endpoint=1, allow_loopback=True)
    try:
        with receiver() as good, receiver(answer=lambda n: 500) as bad:
            created(client, pull, good.url)
            failing = created(client, pull, bad.url)["endpoint"]["endpoint_id"]
            record_event(db)
            run_rounds(db, senders, lambda: len(delivery_rows(db)) == 2 and all(
                d["last_status_code"] is not None for d in delivery_rows(db)))
    finally:
        senders.close()
    db.run(lambda conn: conn.execute(
        "UPDATE webhook_deliveries SET created_at = now() - interval '90 seconds' "
        "WHERE endpoint_id = %s", (failing,)))
    db.run(lambda conn: conn.execute(
        "UPDATE webhook_endpoints SET status = 'disabled', disabled_at = now() WHERE id = %s",
        (failing,)))
    found = _scrape(client)
    assert value(found, "pcs_webhook_deliveries_recent", status="delivered") == 1
    assert value(found, "pcs_webhook_deliveries_recent", status="pending") == 1
    assert value(found, "pcs_webhook_deliveries_recent", status="failed") == 0
    labels = {"partner": "acme", "endpoint_id": failing}
    assert value(found, "pcs_webhook_deliveries_pending", **labels) == 1
    assert 90 <= value(found, "pcs_webhook_oldest_pending_age_seconds", **labels) < 3600
    assert value(found, "pcs_webhook_endpoints", status="disabled") == 1
    assert value(found, "pcs_webhook_endpoints", status="enabled") == 1
