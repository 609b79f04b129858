-- 0018_guest_data_purge: guest data that expires (`flask --app app privacy purge`,
-- connectivity/operator/privacy.py; docs/operations.md, "Guest data that expires").
-- `guest_data_purged_at` on bookings and reservations: when the personal fields of the row (and
-- of a reservation's kept deliveries) were replaced; NULL while it holds them. The indexes find,
-- per hotel, the rows still holding guest data by the end of their stay, so that a purge reads
-- only what is left to purge, however many rows were purged before.
-- migration: no-transaction
-- Runs outside a transaction so that the indexes are built CONCURRENTLY (bookings and
-- reservations grow with every sale). Each statement can run again.
-- Locks: ADD COLUMN (nullable, no default: catalogue-only) takes ACCESS EXCLUSIVE on bookings,
-- then on reservations, for an instant (under the runner's 5 s lock_timeout); the concurrent
-- builds block no writer.

ALTER TABLE bookings ADD COLUMN IF NOT EXISTS guest_data_purged_at timestamptz;
ALTER TABLE reservations ADD COLUMN IF NOT EXISTS guest_data_purged_at timestamptz;

DROP INDEX CONCURRENTLY IF EXISTS bookings_guest_data_idx;
CREATE INDEX CONCURRENTLY bookings_guest_data_idx
    ON bookings (property_id, check_out) WHERE guest_data_purged_at IS NULL;

-- A stay's end is the state's check_out (ISO dates: their text order is their date order).
DROP INDEX CONCURRENTLY IF EXISTS reservations_guest_data_idx;
CREATE INDEX CONCURRENTLY reservations_guest_data_idx
    ON reservations (property_id, (state ->> 'check_out'))
    WHERE guest_data_purged_at IS NULL AND state IS NOT NULL;
