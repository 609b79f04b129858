-- 0030_hotel_acknowledgements: the hotel's acknowledgement of a pull booking (contract 13.2;
-- connectivity/bookings/acknowledge.py), the `booking.hotel_confirmed` event type, and the
-- indexes GET /hotel-bookings, `hotel-bookings overdue` and the metric read through.
-- migration: no-transaction
-- Runs outside a transaction so that the indexes are built CONCURRENTLY and VALIDATE scans
-- under its own weaker lock (bookings and event_log grow with every sale). Each statement can
-- run again after a failed run.
-- Locks: ADD COLUMN (nullable, no default: catalogue-only) and ADD CONSTRAINT ... NOT VALID take
-- ACCESS EXCLUSIVE on bookings, then on event_log, for an instant (under the runner's 5 s
-- lock_timeout); each VALIDATE scans its table under SHARE UPDATE EXCLUSIVE, and the concurrent
-- builds block no writer (each waits for the transactions open when it starts).
--
-- The acknowledgement lives on the booking's own row, not in a table of its own: a hotel
-- booking is the booking another partner made (GET /hotel-bookings lists those rows), and the
-- booking partner reads the hotel's answer on the same row (GET /bookings/{reference}). So an
-- acknowledgement is one conditional UPDATE on the booking's shard, and a cancel and an
-- acknowledgement of one booking queue on one row lock. The hotel is one: a hotel whose
-- mappings name two receivers (a move between channel managers) has one acknowledgement per
-- booking, whichever of them gives it.

ALTER TABLE bookings ADD COLUMN IF NOT EXISTS hotel_acknowledged_status text;
ALTER TABLE bookings ADD COLUMN IF NOT EXISTS hotel_status_acknowledged_at timestamptz;
ALTER TABLE bookings ADD COLUMN IF NOT EXISTS hotel_confirmation_code text;
ALTER TABLE bookings ADD COLUMN IF NOT EXISTS hotel_acknowledged_at timestamptz;

-- hotel_acknowledged_status: the status the hotel last said it loaded (NULL: none yet), and
-- hotel_status_acknowledged_at when it first said so. `acknowledged` is that status being the
-- booking's own: a cancellation after a confirmation's acknowledgement makes it false again.
-- A cancelled booking cannot come back, so a cancellation acknowledged while the booking is
-- confirmed is unstorable. hotel_acknowledged_at: when the confirmed booking was first
-- acknowledged (the booking partner's `hotel_acknowledged_at`), kept through a cancellation.
ALTER TABLE bookings DROP CONSTRAINT IF EXISTS bookings_hotel_acknowledgement;
ALTER TABLE bookings ADD CONSTRAINT bookings_hotel_acknowledgement CHECK (
    (hotel_acknowledged_status IS NULL) = (hotel_status_acknowledged_at IS NULL)
    AND (hotel_acknowledged_status IS NULL OR hotel_acknowledged_status = status
         OR (hotel_acknowledged_status = 'confirmed' AND status = 'cancelled'))
    AND (hotel_confirmation_code IS NULL
         OR (hotel_confirmation_code ~ '^[A-Za-z0-9._/-]{1,64}$'
             AND hotel_acknowledged_status IS NOT NULL))
    AND (hotel_acknowledged_at IS NULL OR hotel_acknowledged_status IS NOT NULL)
) NOT VALID;
ALTER TABLE bookings VALIDATE CONSTRAINT bookings_hotel_acknowledgement;

-- The bookings no hotel has acknowledged in their current status, per hotel in listing order:
-- GET /hotel-bookings?acknowledged=false, `hotel-bookings overdue` and the metric read only
-- these, however many were acknowledged before (an acknowledged booking leaves the index, a
-- cancellation brings it back until acknowledged). Bookings of hotels without a receiver stay
-- in it; they are read only under their own hotel, which no receiver asks for.
DROP INDEX CONCURRENTLY IF EXISTS bookings_unacknowledged_idx;
CREATE INDEX CONCURRENTLY bookings_unacknowledged_idx ON bookings (property_id, created_at, id)
    WHERE hotel_acknowledged_status IS DISTINCT FROM status;

-- Every hotel booking of a hotel in listing order (GET /hotel-bookings without
-- acknowledged=false, and with a hotel_code).
DROP INDEX CONCURRENTLY IF EXISTS bookings_hotel_listing_idx;
CREATE INDEX CONCURRENTLY bookings_hotel_listing_idx ON bookings (property_id, created_at, id);

-- booking.hotel_confirmed (contract 13.2), for the booking partner.
ALTER TABLE event_log DROP CONSTRAINT IF EXISTS event_log_type_check;
ALTER TABLE event_log ADD CONSTRAINT event_log_type_check CHECK (type IN (
    'ari_batch.finished', 'booking.confirmed', 'booking.cancelled', 'booking.hotel_confirmed',
    'hotel_booking.confirmed', 'hotel_booking.cancelled',
    'reservation.flagged', 'mapping.paused', 'mapping.resumed')) NOT VALID;
ALTER TABLE event_log VALIDATE CONSTRAINT event_log_type_check;

-- A booking.hotel_confirmed event holds the booking as its partner reads it, guests included:
-- `privacy purge` purges it with the other booking events, through 0022's partial indexes
-- rebuilt with its type (sql/queries/operator/purge_guest_data.sql names the same five).
DROP INDEX CONCURRENTLY IF EXISTS event_log_guest_data_idx;
CREATE INDEX CONCURRENTLY event_log_guest_data_idx
    ON event_log (property_id, (data #>> '{booking,check_out}'))
    WHERE type IN ('booking.confirmed', 'booking.cancelled', 'booking.hotel_confirmed',
                   'hotel_booking.confirmed', 'hotel_booking.cancelled')
      AND (data #>> '{booking,guest_data_purged_at}') IS NULL;

DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_guest_data_idx;
CREATE INDEX CONCURRENTLY webhook_deliveries_guest_data_idx
    ON webhook_deliveries (partner_id, (body::jsonb #>> '{data,booking,check_out}'))
    WHERE event_type IN ('booking.confirmed', 'booking.cancelled', 'booking.hotel_confirmed',
                         'hotel_booking.confirmed', 'hotel_booking.cancelled')
      AND (body::jsonb #>> '{data,booking,guest_data_purged_at}') IS NULL;
