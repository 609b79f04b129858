"""`flask --app app webhooks prune`: delivered and failed deliveries older than the retention go,
pending ones and recent ones stay."""

from __future__ import annotations

import time

from connectivity.webhooks.dispatch import feed_endpoints
from tests.webhooks.conftest import created
from tests.webhooks.delivery import delivery_rows, record_event


def test_prune_keeps_pending_and_recent_deliveries(app, client, pull, db):
    created(client, pull, "http://127.0.0.1:8080/hook")
    events = [record_event(db) for _ in range(4)]
    for _ in range(200):  # until the log is readable past the four (the horizon)
        if len(delivery_rows(db)) == 4:
            break
        feed_endpoints(db)
        time.sleep(0.05)
    old, old_failed, old_pending, recent = events

    def age(conn):
        # Statements Citus runs too: no now() inside CASE.
        conn.execute("UPDATE webhook_deliveries SET created_at = now() - interval '31 days' "
                     "WHERE event_id <> %s", (recent,))
        conn.execute("UPDATE webhook_deliveries SET next_attempt_at = NULL, status = CASE "
                     "WHEN event_id = %s THEN 'failed' ELSE 'delivered' END "
                     "WHERE event_id IN (%s, %s, %s)", (old_failed, old, old_failed, recent))
    db.run(age)
    with app.app_context():
        result = app.test_cli_runner().invoke(args=["webhooks", "prune", "--days", "30"])
    assert result.exit_code == 0, result.output
    assert "pruned 2 webhook deliveries" in result.output
    assert {d["event_id"] for d in delivery_rows(db)} == {old_pending, recent}
