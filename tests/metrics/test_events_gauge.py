"""Events written per type, read at scrape time from the event log."""

from __future__ import annotations

from connectivity.events.log import EVENT_TYPES
from connectivity.mapping.distribution import set_distribution
from tests.metrics.scrape import samples, value


def written(client) -> dict[str, float]:
    page = samples(client.get("/metrics").get_data(as_text=True))
    return {t: value(page, "pcs_events_written_recent", type=t) for t in EVENT_TYPES}


def test_events_written_are_counted_by_type(client, db, catalog):
    assert set(written(client).values()) == {0}
    db.run(set_distribution, "acme", "LIS1", False)
    db.run(set_distribution, "acme", "OPO1", False)
    db.run(set_distribution, "acme", "LIS1", True)
    after = written(client)
    assert (after["mapping.paused"], after["mapping.resumed"]) == (2, 1)
    assert after["booking.confirmed"] == 0
