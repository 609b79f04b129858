"""The hotel's acknowledgement (contract 13.2) is one transaction that writes one shard: the
booking's row and, when the booking partner hears of it, its booking.hotel_confirmed event
beside it, committed in one phase (no PREPARE TRANSACTION). Finding the booking by its
confirmation number reads the shards of the receiver's hotels, in the same transaction (their
workers only COMMIT a read); nothing else is written anywhere.
Observed from what the coordinator sends to the workers, through the real request path."""

from __future__ import annotations

import re

from tests.bookings.conftest import booking_body
from tests.support.signing import bearer
from tests.system.citus.conftest import API, remote_commands


def written(sent, table: str) -> tuple[set[str], set[int]]:
    """The shards of `table` that writing statements were sent to (an UPDATE may follow its
    WITH), and their nodes."""
    pattern = re.compile(rf"\b(?:INSERT INTO|UPDATE|COPY) public\.{re.escape(table)}_(\d+)\b")
    hits = [(port, shard) for port, c in sent.sent for shard in pattern.findall(c)]
    return {shard for _, shard in hits}, {port for port, _ in hits}


def test_an_acknowledgement_writes_its_booking_and_event_on_one_shard_in_one_phase(
        citus, settings, issue, partners):
    rows_node, _ = partners
    pull = bearer(issue("pull", rate_limit=100000).token)
    hotel = bearer(issue("push", partner="lisboa-cm", signed=False, rate_limit=100000).token)
    with remote_commands(citus, settings) as (app, _):
        made = app.test_client().post(f"{API}/bookings", json=booking_body("ACK-C1"),
                                      headers=pull)
    assert made.status_code == 201, made.get_json()
    number = made.get_json()["data"]["booking"]["confirmation_number"]
    # The first, a repeat (which stores nothing), a new code.
    for code, stores in (("LIS-1", True), ("LIS-1", False), ("LIS-2", True)):
        with remote_commands(citus, settings) as (app, sent):
            answer = app.test_client().post(
                f"{API}/hotel-bookings/{number}/acknowledge",
                json={"status": "confirmed", "hotel_confirmation_code": code}, headers=hotel)
        assert answer.status_code == 200, answer.get_json()
        bookings, booking_nodes = written(sent, "bookings")
        events, event_nodes = written(sent, "event_log")
        # The conditional UPDATE goes to the booking's shard every time (a repeat's changes
        # no row); the event only with a change.
        assert len(bookings) == 1 and booking_nodes == {rows_node}, sent.sent
        if stores:
            assert len(events) == 1 and event_nodes == {rows_node}, sent.sent
        else:
            assert events == set(), sent.sent
        assert sent.prepared_on() == set(), sent.sent
        for table in ("booking_claims", "room_type_days", "webhook_deliveries"):
            assert written(sent, table) == (set(), set()), (table, sent.sent)
