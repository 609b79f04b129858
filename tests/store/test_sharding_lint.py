"""The schema lint of issue 17: read from pg_catalog of the migrated database, the schema must be
one Citus can distribute as connectivity/store/sharding.py plans it, and the lint must see each kind
of mistake that would stop it (each one made in a transaction that is rolled back). On a Citus
cluster (PCS_TEST_ON_CITUS=1) the tables are distributed already: there Citus itself must refuse
each such mistake, which is what the lint tells of before distribution."""

from __future__ import annotations

import psycopg
import pytest

from connectivity.store.sharding import (DISTRIBUTED_BY_PARTNER, DISTRIBUTED_BY_PROPERTY, REFERENCE,
                                   schema_problems)
from tests.support.oncitus import on_citus


@pytest.fixture
def conn(services):
    with psycopg.connect(services.database_url, row_factory=psycopg.rows.dict_row) as conn:
        yield conn
        conn.rollback()


def test_the_migrated_schema_can_be_distributed_as_planned(conn):
    assert schema_problems(conn) == []


def test_no_table_is_placed_twice():
    placed = list(DISTRIBUTED_BY_PROPERTY) + list(DISTRIBUTED_BY_PARTNER) + list(REFERENCE)
    assert len(placed) == len(set(placed))


def made(conn, mistake: str) -> bool:
    """Make the mistake (statements separated by "; "): True on plain PostgreSQL, where the lint
    must then find it; False on a Citus cluster, after the cluster refused it."""
    statements = mistake.split("; ")
    if not on_citus():
        for statement in statements:
            conn.execute(statement)
        return True
    with pytest.raises(psycopg.errors.FeatureNotSupported):
        for statement in statements:
            conn.execute(statement)
    return False


@pytest.mark.parametrize("mistake, expected", [
    ("ALTER TABLE bookings ADD CONSTRAINT global_confirmation UNIQUE (confirmation_number)",
     "bookings: unique key global_confirmation (confirmation_number) lacks the distribution "
     "column property_id"),
    ("CREATE UNIQUE INDEX global_ack ON reservation_versions (ack_id)",
     "reservation_versions: unique key global_ack (ack_id) lacks the distribution column "
     "property_id"),
    ("ALTER TABLE booking_claims ADD CONSTRAINT one_claim_per_booking UNIQUE (booking_id)",
     "booking_claims: unique key one_claim_per_booking (booking_id) lacks the distribution "
     "column partner_id"),
])
def test_a_unique_key_without_the_distribution_column_is_found(conn, mistake, expected):
    if made(conn, mistake):
        assert [p for p in schema_problems(conn) if p.startswith(expected)]


@pytest.mark.parametrize("mistake, table, key", [
    # Distributed differently: claims by partner, bookings by property.
    ("ALTER TABLE booking_claims ADD CONSTRAINT claim_booking FOREIGN KEY (property_id, booking_id) "
     "REFERENCES bookings (property_id, id)", "booking_claims", "claim_booking"),
    # Colocated, but not joined on the distribution column.
    ("ALTER TABLE reconciliation_items ADD CONSTRAINT by_id_only FOREIGN KEY (id, reservation_id) "
     "REFERENCES reservations (id, property_id)", "reconciliation_items", "by_id_only"),
    # A reference table pointing into a distributed one.
    ("ALTER TABLE partner_properties ADD COLUMN last_batch text; "
     "ALTER TABLE partner_properties ADD CONSTRAINT last_batch FOREIGN KEY (property_id, last_batch) "
     "REFERENCES ari_batches (property_id, id)", "partner_properties", "last_batch"),
])
def test_a_foreign_key_citus_cannot_keep_is_found(conn, mistake, table, key):
    if made(conn, mistake):
        assert [p for p in schema_problems(conn) if p.startswith(f"{table}: foreign key {key} ")]


def test_a_table_left_out_of_the_plan_and_a_trigger_on_a_reference_table_are_found(conn):
    conn.execute("CREATE TABLE loyalty_points (property_id bigint PRIMARY KEY)")
    conn.execute("CREATE FUNCTION nothing() RETURNS trigger LANGUAGE plpgsql AS "
                 "$$ BEGIN RETURN NULL; END $$")
    conn.execute("CREATE TRIGGER touched AFTER UPDATE ON partner_properties "
                 "FOR EACH ROW EXECUTE FUNCTION nothing()")
    problems = schema_problems(conn)
    assert "loyalty_points: not in the plan (connectivity/store/sharding.py): place it" in problems
    assert [p for p in problems if p.startswith("partner_properties: trigger touched:")]
