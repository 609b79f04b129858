-- 0008_ari_readback: indexes for GET /ari (contract 11.1): the `rooms_sold` (nights held by
-- confirmed pull bookings and by live pushed reservations, per property and date) and the
-- batches `set_by` names (a hotel's batches by acceptance order).
-- migration: no-transaction
-- Runs outside a transaction so that the indexes are built CONCURRENTLY: bookings and
-- reservation_nights grow with every sale, and a plain build would hold a SHARE lock (every
-- booking and pushed reservation waiting) for a full scan, and ari_batches grows with every
-- push. Each statement can run again.
-- Locks: none that blocks a writer (the concurrent builds wait for running writers to finish).
--
-- Without them the read-back filters every booking and every reservation night of the table.
-- Confirmed bookings are found by the end of their stay (a range read back starts at or after
-- today in practice, so the index range holds the bookings still to come); held reservation
-- nights by date.

DROP INDEX CONCURRENTLY IF EXISTS bookings_confirmed_stay_idx;
CREATE INDEX CONCURRENTLY bookings_confirmed_stay_idx
    ON bookings (property_id, check_out) INCLUDE (check_in, room_type_id, rooms)
    WHERE status = 'confirmed';

DROP INDEX CONCURRENTLY IF EXISTS reservation_nights_held_date_idx;
CREATE INDEX CONCURRENTLY reservation_nights_held_date_idx
    ON reservation_nights (property_id, date) INCLUDE (room_type_id, wanted)
    WHERE released_at IS NULL;

DROP INDEX CONCURRENTLY IF EXISTS ari_batches_property_seq_idx;
CREATE INDEX CONCURRENTLY ari_batches_property_seq_idx ON ari_batches (property_id, seq);
