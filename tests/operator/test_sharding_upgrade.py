"""Migration 0011 on a database with data (issue 17): what the old schema held keeps its
meaning under the new keys. A database is migrated up to the schema before 0011, filled the way
the old code filled it, then upgraded: the counters continue each hotel's batch order, the claims
find the bookings and reservations, and an orphan stored without a hotel is placed."""

from __future__ import annotations

import shutil
from pathlib import Path

import psycopg
import pytest
from psycopg.rows import dict_row

from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.operator.migrations import upgrade
from connectivity.store.sharding import schema_problems
from tests.conftest import DEMO_CATALOG

MIGRATIONS = Path(__file__).resolve().parents[2] / "sql" / "migrations"
FIRST_SHARDED = "0011"

OLD_ROWS = """
INSERT INTO ari_batches (id, partner_id, environment, mapping_id, property_id, hotel_code, kind,
                         items, item_count)
SELECT 'old-' || g || '-' || pp.hotel_code, pp.partner_id, pp.environment, pp.id,
       pp.property_id, pp.hotel_code, 'ari', '[{"a": 1}]', 1
  FROM partner_properties pp CROSS JOIN generate_series(1, 3) g
 ORDER BY g, pp.id;

INSERT INTO booking_claims (partner_id, environment, partner_reference, booking_id)
SELECT pp.partner_id, pp.environment, 'BKG-OLD', 41 FROM partner_properties pp
 WHERE pp.hotel_code = 'ACME-OPO';
INSERT INTO bookings (id, partner_id, environment, partner_reference, confirmation_number,
                      request_hash, status, mapping_id, property_id, room_type_id, rate_plan_id,
                      hotel_code, room_type_code, rate_plan_code, check_in, check_out, rooms,
                      total_amount, currency, nights, cancellation_policy, policy_currency,
                      policy_fx_rate, guests, contact)
SELECT 41, pp.partner_id, pp.environment, 'BKG-OLD', 'PCS-OLD000000001', sha256('x'),
       'confirmed', pp.id, pp.property_id, rt.id, rp.id, pp.hotel_code, 'T', 'P',
       '2030-01-01', '2030-01-02', 1, 70, 'EUR', '[{"date": "2030-01-01", "amount": "70"}]',
       '{}', 'EUR', 1, '[]', '{}'
  FROM partner_properties pp
  JOIN room_types rt ON rt.property_id = pp.property_id
  JOIN rate_plans rp ON rp.property_id = pp.property_id
 WHERE pp.hotel_code = 'ACME-OPO' LIMIT 1;

-- An orphan cancellation, stored before 0011 with no hotel.
INSERT INTO reservations (id, partner_id, environment, partner_reference, status)
SELECT 7, partner_id, environment, 'CM-ORPHAN', 'cancelled' FROM partner_properties
 WHERE hotel_code = 'ACME-OPO';
INSERT INTO reservation_versions (reservation_id, version, kind, ack_id, payload)
VALUES (7, 1, 'cancel', 'ack_old000000000000001', '{}');
UPDATE reservations SET version = 1 WHERE id = 7;
INSERT INTO reconciliation_items (reservation_id, version, code, message)
VALUES (7, 1, 'orphan_cancellation', 'cancellation of a reservation never received');
SELECT setval('bookings_id_seq', 41);
SELECT setval('reservations_id_seq', 7);
"""


@pytest.fixture
def old_database(empty_database, tmp_path):
    url = empty_database
    for path in MIGRATIONS.glob("*.sql"):
        if path.stem < FIRST_SHARDED or path.stem.startswith("0014"):
            shutil.copy(path, tmp_path / path.name)
    upgrade(url, tmp_path)
    with psycopg.connect(url, row_factory=dict_row) as conn:
        # Today's catalogue load writes the mapping's receives_bookings (0020, which needs
        # 0012's stamp and so cannot come early): there for the load only.
        conn.execute("ALTER TABLE partner_properties ADD COLUMN receives_bookings boolean "
                     "NOT NULL DEFAULT false")
        load_catalog(conn, parse_catalog(DEMO_CATALOG.read_text()))
        conn.execute("ALTER TABLE partner_properties DROP COLUMN receives_bookings")
        conn.execute(OLD_ROWS)
    return url


def test_the_old_rows_keep_their_meaning_under_the_new_keys(old_database):
    applied = upgrade(old_database)
    assert [v for v in applied if v >= FIRST_SHARDED] == applied and applied
    with psycopg.connect(old_database, row_factory=dict_row) as conn:
        assert schema_problems(conn) == []
        counters = {r["code"]: r["last_batch_seq"] for r in conn.execute(
            "SELECT p.code, c.last_batch_seq FROM property_counters c "
            "JOIN properties p ON p.id = c.property_id")}
        highest = {r["code"]: r["seq"] for r in conn.execute(
            "SELECT p.code, max(b.seq) AS seq FROM ari_batches b "
            "JOIN properties p ON p.id = b.property_id GROUP BY p.code")}
        assert counters == highest and set(counters) == {"LIS1", "OPO1"}

        claim = conn.execute("SELECT c.booking_id, p.code FROM booking_claims c "
                             "JOIN properties p ON p.id = c.property_id").fetchone()
        assert claim == {"booking_id": 41, "code": "OPO1"}

        # acme's first hotel of its environment (LIS1 has the lower id): only the shard of it.
        placed = {table: conn.execute(
            f"SELECT p.code FROM {table} t JOIN properties p ON p.id = t.property_id "
            f"WHERE t.{column} = 7").fetchone()["code"]
            for table, column in (("reservations", "id"), ("reservation_claims", "reservation_id"),
                                  ("reservation_versions", "reservation_id"),
                                  ("reconciliation_items", "reservation_id"))}
        assert set(placed.values()) == {"LIS1"}, placed


def test_a_partner_with_an_orphan_and_no_hotel_stops_the_upgrade_and_says_why(old_database):
    with psycopg.connect(old_database) as conn:
        conn.execute("INSERT INTO partners (code, name) VALUES ('lonely', 'No hotels')")
        conn.execute("INSERT INTO reservations (partner_id, environment, partner_reference, "
                     "status) SELECT id, 'sandbox', 'CM-X', 'cancelled' FROM partners "
                     "WHERE code = 'lonely'")
    with pytest.raises(psycopg.errors.RaiseException, match="cannot be placed"):
        upgrade(old_database)
    with psycopg.connect(old_database) as conn:
        assert conn.execute("SELECT count(*) FROM schema_migrations WHERE version LIKE '0011%'"
                            ).fetchone() == (0,)
