"""The event log's interface (connectivity/events/log.py), as the areas and the webhooks use it:
an event written in its cause's transaction exists exactly when the cause committed, and a
reader following the position sees each committed event once, in order."""

from __future__ import annotations

import pytest

from connectivity.events import log
from tests.support.feed import settle


def _property_and_partner(conn):
    row = conn.execute("SELECT p.id AS property_id, pp.partner_id FROM properties p "
                       "JOIN partner_properties pp ON pp.property_id = p.id "
                       "JOIN partners pa ON pa.id = pp.partner_id "
                       "WHERE p.code = 'LIS1' AND pa.code = 'acme'").fetchone()
    return row["property_id"], row["partner_id"]


def _write(db, hotel_code: str, fail: bool = False):
    def use_case(conn):
        property_id, partner_id = _property_and_partner(conn)
        event_id = log.record(conn, property_id=property_id, partner_id=partner_id,
                              environment="sandbox", type="mapping.paused",
                              data={"hotel_code": hotel_code})
        if fail:
            raise RuntimeError("the cause rolls back")
        return event_id
    return db.run(use_case)


def _read_all(db, partner_id, after, types=log.EVENT_TYPES, limit=2):
    events = []
    while True:
        with db.connection() as conn:
            page = log.read_page(conn, partner_id, "sandbox", after, limit, types)
        events += page.events
        after = page.next
        if not page.has_more:
            return events, after


def test_a_reader_sees_each_committed_event_once_in_order_and_none_rolled_back(db, catalog):
    with db.connection() as conn:
        start = log.latest(conn)
        _, partner_id = _property_and_partner(conn)
    written = [_write(db, f"H{i}") for i in range(5)]
    with pytest.raises(RuntimeError):
        _write(db, "rolled back", fail=True)
    settle(db)
    events, position = _read_all(db, partner_id, start)
    assert [e.event_id for e in events] == written
    assert [e.document["data"]["hotel_code"] for e in events] == [f"H{i}" for i in range(5)]
    assert {e.type for e in events} == {"mapping.paused"}
    assert set(events[0].document) == {"event_id", "type", "created_at", "data"}
    later = _write(db, "H5")
    settle(db)
    more, _ = _read_all(db, partner_id, position)
    assert [e.event_id for e in more] == [later]
    # From the oldest kept: everything, and a type filter leaves the others out.
    with db.connection() as conn:
        oldest = log.oldest(conn)
    assert [e.event_id for e in _read_all(db, partner_id, oldest)[0]] == [*written, later]
    assert _read_all(db, partner_id, oldest, types=["booking.confirmed"])[0] == []
    # Another partner's log holds none of them.
    assert _read_all(db, partner_id + 1000, oldest)[0] == []


def test_a_type_outside_the_contract_is_refused(db, catalog):
    def use_case(conn):
        property_id, partner_id = _property_and_partner(conn)
        log.record(conn, property_id=property_id, partner_id=partner_id,
                   environment="sandbox", type="booking.made", data={})
    with pytest.raises(ValueError):
        db.run(use_case)


def test_types_follow_the_scopes_of_the_contract_table():
    assert log.types_visible_to(["booking.read"]) == (
        "booking.confirmed", "booking.cancelled", "booking.hotel_confirmed")
    assert log.types_visible_to(["reservation.cancel"]) == ("reservation.flagged",)
    assert log.types_visible_to(["booking.quote", "ari.write"]) == (
        "ari_batch.finished", "mapping.paused", "mapping.resumed")
    assert log.types_visible_to([]) == ()
