"""The tables refuse impossible states on their own, whatever the code above them does."""

from __future__ import annotations

import psycopg
import pytest

from tests.api.helpers import assert_envelope_success

from .conftest import post, reservation


@pytest.fixture
def stored(client, push, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    return db.run(lambda c: c.execute("SELECT id FROM reservations").fetchone())["id"]


@pytest.mark.parametrize("statement", [
    # more taken than wanted, or a negative take
    "UPDATE reservation_nights SET taken = wanted + 1",
    "UPDATE reservation_nights SET taken = -1",
    # the same night held twice by one reservation
    "INSERT INTO reservation_nights (reservation_id, version, property_id, room_type_id, date, "
    "wanted, taken) SELECT reservation_id, version, property_id, room_type_id, date, 1, 0 "
    "FROM reservation_nights LIMIT 1",
    # content without its mapping, or a reservation nowhere
    "UPDATE reservations SET mapping_id = NULL",
    "UPDATE reservations SET property_id = NULL",
    # a penalty on a reservation that is not cancelled
    "UPDATE reservations SET penalty_amount = 1, penalty_currency = 'EUR'",
    "UPDATE reservations SET status = 'pending'",
    "UPDATE reservations SET partner_reference = 'a/b'",
    # a second claim of the same reference (the claim is where a reference is unique)
    "INSERT INTO reservation_claims (partner_id, environment, partner_reference, property_id, "
    "reservation_id) SELECT partner_id, environment, partner_reference, property_id, id + 1 "
    "FROM reservations",
    # a second original delivery with the same acknowledgement
    "INSERT INTO reservation_versions (property_id, reservation_id, version, kind, ack_id, "
    "payload) SELECT property_id, reservation_id, 99, 'cancel', ack_id, '{}' "
    "FROM reservation_versions",
    # a version, or an item, of a reservation that is not there (or not at that hotel)
    "INSERT INTO reservation_versions (property_id, reservation_id, version, kind, ack_id, "
    "payload) SELECT property_id + 1, reservation_id, 99, 'cancel', 'ack_elsewhere00000000', "
    "'{}' FROM reservation_versions",
    "INSERT INTO reconciliation_items (property_id, reservation_id, version, code, message) "
    "SELECT property_id, id, 1, 'something_else', 'x' FROM reservations",
])
def test_impossible_states_are_unstorable(db, stored, statement):
    with pytest.raises(psycopg.errors.IntegrityError):
        db.run(lambda conn: conn.execute(statement))
