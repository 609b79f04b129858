"""The tables refuse impossible states on their own, whatever the code above them does."""

from __future__ import annotations

import psycopg
import pytest

from tests.support.envelope import assert_envelope_success

from tests.reservations.conftest import post, reservation


@pytest.fixture
def stored(client, push, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    return db.run(lambda c: c.execute("SELECT id FROM reservations").fetchone())["id"]


@pytest.mark.parametrize("statement", [
    # more taken than wanted, or a negative take
    "UPDATE reservation_nights SET taken = wanted + 1",
    "UPDATE reservation_nights SET taken = -1",
    # the same night held twice by one reservation
    ("SELECT reservation_id, version, property_id, room_type_id, date FROM reservation_nights "
     "LIMIT 1",
     "INSERT INTO reservation_nights (reservation_id, version, property_id, room_type_id, date, "
     "wanted, taken) VALUES (%s, %s, %s, %s, %s, 1, 0)"),
    # content without its mapping (a reservation nowhere: the test after this one)
    "UPDATE reservations SET mapping_id = NULL",
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
    # an item of a kind there is none of
    ("SELECT property_id, id FROM reservations",
     "INSERT INTO reconciliation_items (property_id, reservation_id, version, code, message) "
     "VALUES (%s, %s, 1, 'something_else', 'x')"),
])
def test_impossible_states_are_unstorable(db, stored, statement):
    """A pair is (a read, an INSERT ... VALUES of the row it read): a single-row write the way
    the service writes one. On Citus an INSERT ... SELECT that is not pushed down to the shards
    runs through the coordinator, and a violation there reaches the client as XX000 rather than
    its own class; the row must still be refused by the table's own constraint."""
    def run(conn):
        if isinstance(statement, str):
            conn.execute(statement)
        else:
            read, write = statement
            conn.execute(write, tuple(conn.execute(read).fetchone().values()))
    with pytest.raises(psycopg.errors.IntegrityError):
        db.run(run)


def test_a_reservation_is_never_nowhere(db, stored, services):
    """Its hotel is NOT NULL. On Citus, where property_id is the distribution column, Citus
    refuses changing it at all before the table is reached: there the state is unstorable too,
    for another reason."""
    refused = (psycopg.errors.FeatureNotSupported if services.citus is not None
               else psycopg.errors.NotNullViolation)
    with pytest.raises(refused):
        db.run(lambda conn: conn.execute("UPDATE reservations SET property_id = NULL"))
