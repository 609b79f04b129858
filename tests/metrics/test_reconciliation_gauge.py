"""Open reconciliation items of pushed reservations, read at scrape time."""

from __future__ import annotations

from tests.support.envelope import assert_envelope_success
from tests.metrics.scrape import samples, value
from tests.reservations.conftest import items, post, push, reservation  # noqa: F401 - fixture


def open_items(client) -> float:
    return value(samples(client.get("/metrics").get_data(as_text=True)),
                 "pcs_reconciliation_items_open")


def test_open_reconciliation_items_are_counted_until_resolved(client, push, db):
    assert open_items(client) == 0
    # No inventory loaded: the pushed reservation is stored and its shortfall recorded.
    data = assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    assert [i["code"] for i in data["reconciliation"]] == ["inventory_shortfall"]
    assert open_items(client) == len(items(db)) == 1
    with db.connection() as conn:
        conn.execute("UPDATE reconciliation_items SET resolved_at = now()")
    assert open_items(client) == 0
