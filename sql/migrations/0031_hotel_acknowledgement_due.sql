-- 0031_hotel_acknowledgement_due: since when a hotel booking has waited for the hotel's
-- acknowledgement (contract 13.2), in one place: `hotel-bookings overdue` lists by it and the
-- metric reports the oldest by it (sql/queries/bookings/hotel_bookings.sql,
-- sql/queries/metrics/stored.sql).
-- Locks: none (CREATE FUNCTION).
--
-- A booking the hotel never acknowledged has waited since it was made, cancelled since or not:
-- the hotel's system has answered nothing about it. One whose confirmation was acknowledged
-- and which was cancelled since waits from its cancellation. (An acknowledged booking waits
-- for nothing; the callers read only the others, through bookings_unacknowledged_idx.)
--
-- An IMMUTABLE SQL function of one expression, inlined into its callers like 0016's; Citus
-- creates it on every node as it is created here (citus.create_object_propagation), so a
-- statement pushed down to the shards may call it.
SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

CREATE FUNCTION hotel_acknowledgement_due_since(
    acknowledged_status text, created_at timestamptz, cancelled_at timestamptz)
RETURNS timestamptz
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN acknowledged_status IS NULL THEN created_at ELSE cancelled_at END $$;
