-- 0011_sharding_keys: one schema for plain PostgreSQL and for Citus sharded by property_id
-- (docs/operations.md 6.4; the placement of every table is connectivity/store/sharding.py).
-- Locks: ACCESS EXCLUSIVE on ari_batches, bookings, booking_claims, reservations,
-- reservation_versions, reservation_nights, reconciliation_items and change_log while their
-- keys are rebuilt (each key's index is built anew: seconds per million rows). Run it in a
-- quiet window; nothing is rewritten but the added columns' backfill.
--
-- Citus keeps a primary key or unique constraint only if it holds the distribution column, and
-- a foreign key only between colocated tables (or to a reference table). Every key below gains
-- property_id, and every guarantee a key gave up is kept another way, the same on both engines:
-- - a global identity (bookings.id, reservations.id, reconciliation_items.id, change_log.id)
--   comes from a sequence drawn on the coordinator, through which every write passes;
-- - idempotency per (partner, environment, partner_reference) lives in a claim table keyed by
--   it (booking_claims, and now reservation_claims), written first in the same transaction as
--   the row it claims (on Citus: one two-phase commit when the claim's shard is elsewhere);
-- - acceptance order of a hotel's ARI batches is a per-property counter (property_counters),
--   not a global sequence: values are only ever compared within one property.

-- ARI batches: seq counted per property. The counter row is updated by the accepting
-- transaction itself, so a hotel's batches get 1, 2, 3... in the order their accepts take the
-- row lock; existing batches keep their seq (unique per property already).
CREATE TABLE property_counters (
    property_id     bigint PRIMARY KEY REFERENCES properties(id),
    last_batch_seq  bigint NOT NULL CHECK (last_batch_seq >= 1)
);
INSERT INTO property_counters (property_id, last_batch_seq)
SELECT property_id, max(seq) FROM ari_batches GROUP BY property_id;

ALTER TABLE ari_batches ALTER COLUMN seq DROP IDENTITY;
ALTER TABLE ari_batches DROP CONSTRAINT ari_batches_seq_key;
ALTER TABLE ari_batches DROP CONSTRAINT ari_batches_pkey;
ALTER TABLE ari_batches ADD PRIMARY KEY (property_id, id);
ALTER TABLE ari_batches ADD CONSTRAINT ari_batches_property_seq_key UNIQUE (property_id, seq);
-- The unique key above serves (property_id, seq) reads; 0008's plain index is now redundant.
DROP INDEX IF EXISTS ari_batches_property_seq_idx;
-- GET /ari/batches/{id} and the worker's job know the batch id only (a uuid the service made).
CREATE INDEX ari_batches_id_idx ON ari_batches (id);
-- The metrics' "last N accepted" (sql/queries/metrics/stored.sql), which used the global seq.
CREATE INDEX ari_batches_received_idx ON ari_batches (received_at);

-- Bookings: the claim is the only home of the reference's uniqueness; it now also says where
-- its booking lives, so a replay or a GET reads the booking on its own shard.
ALTER TABLE booking_claims DROP CONSTRAINT booking_claims_booking_id_fkey;
ALTER TABLE booking_claims DROP CONSTRAINT booking_claims_booking_id_key;
-- NULL only in the claiming transaction, for a hotel code the caller has not mapped: that
-- transaction then answers 404 and rolls the claim back.
ALTER TABLE booking_claims ADD COLUMN property_id bigint REFERENCES properties(id);
UPDATE booking_claims c SET property_id = b.property_id FROM bookings b WHERE b.id = c.booking_id;

ALTER TABLE bookings DROP CONSTRAINT bookings_partner_id_environment_partner_reference_fkey;
ALTER TABLE bookings DROP CONSTRAINT bookings_partner_id_environment_partner_reference_key;
ALTER TABLE bookings DROP CONSTRAINT bookings_confirmation_number_key;
ALTER TABLE bookings DROP CONSTRAINT bookings_pkey;
ALTER TABLE bookings ADD PRIMARY KEY (property_id, id);
-- Globally unique by construction (connectivity/bookings/confirmation.py: a permutation of the
-- booking's id); this key is the per-shard check of it.
ALTER TABLE bookings ADD CONSTRAINT bookings_confirmation_number_key
    UNIQUE (property_id, confirmation_number);
CREATE INDEX bookings_reference_idx ON bookings (partner_id, environment, partner_reference);

-- Reservations: the reference is claimed like a booking's; the row lives with its hotel. A
-- cancel or modify that overtakes its reservation names the hotel (hotel_code), which places
-- it. Orphans stored before this migration had none: they are placed with the partner's
-- first hotel of their environment (only their shard depends on it, and that one is
-- right for a partner with one hotel; the reservation, when it comes, keeps its own mapping).
-- The old check tied property_id to mapping_id (both NULL until the reservation came).
ALTER TABLE reservations DROP CONSTRAINT reservations_check;
ALTER TABLE reservations ADD CONSTRAINT reservations_received_check
    CHECK ((mapping_id IS NULL) = (state IS NULL) AND (mapping_id IS NULL) = (received_at IS NULL));
UPDATE reservations r
   SET property_id = (SELECT min(pp.property_id) FROM partner_properties pp
                       WHERE pp.partner_id = r.partner_id AND pp.environment = r.environment)
 WHERE r.property_id IS NULL;
ALTER TABLE reservations DROP CONSTRAINT reservations_mapping_id_property_id_fkey;
ALTER TABLE reservations ADD FOREIGN KEY (mapping_id, property_id)
    REFERENCES partner_properties (id, property_id);
ALTER TABLE reservations ADD FOREIGN KEY (property_id) REFERENCES properties (id);
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM reservations WHERE property_id IS NULL) THEN
        RAISE EXCEPTION 'reservations of partners with no hotel in their environment cannot be placed'
            USING HINT = 'SELECT partner_id, environment, partner_reference FROM reservations '
                         'WHERE property_id IS NULL; map a hotel for those partners, then upgrade again';
    END IF;
END $$;

CREATE TABLE reservation_claims (
    partner_id         bigint NOT NULL REFERENCES partners(id),
    environment        text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    partner_reference  text NOT NULL CHECK (partner_reference ~ '^[A-Za-z0-9._-]{1,120}$'),
    property_id        bigint NOT NULL REFERENCES properties(id),
    reservation_id     bigint NOT NULL,
    PRIMARY KEY (partner_id, environment, partner_reference)
);
INSERT INTO reservation_claims (partner_id, environment, partner_reference, property_id,
                                reservation_id)
SELECT partner_id, environment, partner_reference, property_id, id
  FROM reservations WHERE property_id IS NOT NULL;

ALTER TABLE reservation_versions ADD COLUMN property_id bigint;
UPDATE reservation_versions v SET property_id = r.property_id
  FROM reservations r WHERE r.id = v.reservation_id;
ALTER TABLE reservation_nights DROP CONSTRAINT reservation_nights_reservation_id_version_fkey;
ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_reservation_id_version_fkey;
ALTER TABLE reservation_versions DROP CONSTRAINT reservation_versions_reservation_id_replay_of_fkey;
ALTER TABLE reservation_versions DROP CONSTRAINT reservation_versions_reservation_id_fkey;
ALTER TABLE reservations DROP CONSTRAINT reservations_partner_id_environment_partner_reference_key;
ALTER TABLE reservations DROP CONSTRAINT reservations_pkey;
ALTER TABLE reservations ADD PRIMARY KEY (property_id, id);
CREATE INDEX reservations_reference_idx ON reservations (partner_id, environment, partner_reference);

ALTER TABLE reservation_versions DROP CONSTRAINT reservation_versions_pkey;
ALTER TABLE reservation_versions ADD PRIMARY KEY (property_id, reservation_id, version);
ALTER TABLE reservation_versions ADD FOREIGN KEY (property_id, reservation_id)
    REFERENCES reservations (property_id, id);
ALTER TABLE reservation_versions ADD FOREIGN KEY (property_id, reservation_id, replay_of)
    REFERENCES reservation_versions (property_id, reservation_id, version);
DROP INDEX reservation_versions_ack_idx;
-- ack ids are random (12 bytes): unique per hotel here, and across hotels by their size.
CREATE UNIQUE INDEX reservation_versions_ack_idx ON reservation_versions (property_id, ack_id)
    WHERE replay_of IS NULL;

ALTER TABLE reservation_nights DROP CONSTRAINT reservation_nights_pkey;
ALTER TABLE reservation_nights ADD PRIMARY KEY (property_id, reservation_id, version, room_type_id, date);
ALTER TABLE reservation_nights ADD FOREIGN KEY (property_id, reservation_id, version)
    REFERENCES reservation_versions (property_id, reservation_id, version);
DROP INDEX reservation_nights_held_idx;
CREATE UNIQUE INDEX reservation_nights_held_idx
    ON reservation_nights (property_id, reservation_id, room_type_id, date)
    WHERE released_at IS NULL;

ALTER TABLE reconciliation_items ADD COLUMN property_id bigint;
UPDATE reconciliation_items i SET property_id = r.property_id
  FROM reservations r WHERE r.id = i.reservation_id;
ALTER TABLE reconciliation_items DROP CONSTRAINT reconciliation_items_pkey;
ALTER TABLE reconciliation_items ADD PRIMARY KEY (property_id, id);
ALTER TABLE reconciliation_items ADD FOREIGN KEY (property_id, reservation_id, version)
    REFERENCES reservation_versions (property_id, reservation_id, version);
-- `reconciliation resolve <id>` knows the id only.
CREATE INDEX reconciliation_items_id_idx ON reconciliation_items (id);

-- The change log lives with its property; its id stays one sequence for the feed's order.
ALTER TABLE change_log DROP CONSTRAINT change_log_pkey;
ALTER TABLE change_log ADD PRIMARY KEY (property_id, id);

-- A pause or resume is written by its own use case (sql/queries/operator/distribution.sql), not
-- by a trigger on partner_properties: a mapping is a reference table under Citus, copied to
-- every node, where a row trigger would fire once per copy.
DROP TRIGGER partner_properties_distribution_log ON partner_properties;
DROP FUNCTION log_distribution_changed();
