-- 0022_event_guest_data_purge: guest data that expires also leaves the event log and the
-- webhook deliveries (`flask --app app privacy purge`, connectivity/operator/privacy.py,
-- docs/operations.md 5.5). A booking event (booking.*, hotel_booking.*) and each delivery of
-- one hold the booking as the partner read it, its guests and contact included, until the
-- purge sets `data.booking.guest_data_purged_at`. These partial indexes hold only those not
-- purged yet, by the end of their stay, per hotel (the log's distribution column) and per
-- partner (the deliveries'), so that a purge reads only what is left to purge, however many
-- events were purged or are of other types. No column is added: the marker is the one the
-- partner reads.
-- migration: no-transaction
-- Runs outside a transaction so that the indexes are built CONCURRENTLY (both tables grow with
-- every booking). Each statement can run again.
-- Locks: none that blocks a writer (concurrent builds); each build waits for the transactions
-- open when it starts.

DROP INDEX CONCURRENTLY IF EXISTS event_log_guest_data_idx;
CREATE INDEX CONCURRENTLY event_log_guest_data_idx
    ON event_log (property_id, (data #>> '{booking,check_out}'))
    WHERE type IN ('booking.confirmed', 'booking.cancelled',
                   'hotel_booking.confirmed', 'hotel_booking.cancelled')
      AND (data #>> '{booking,guest_data_purged_at}') IS NULL;

-- The body is the event as JSON text (0021): read as jsonb, an immutable cast.
DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_guest_data_idx;
CREATE INDEX CONCURRENTLY webhook_deliveries_guest_data_idx
    ON webhook_deliveries (partner_id, (body::jsonb #>> '{data,booking,check_out}'))
    WHERE event_type IN ('booking.confirmed', 'booking.cancelled',
                         'hotel_booking.confirmed', 'hotel_booking.cancelled')
      AND (body::jsonb #>> '{data,booking,guest_data_purged_at}') IS NULL;
