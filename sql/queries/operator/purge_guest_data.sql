-- `flask --app app privacy purge` (connectivity/operator/privacy.py): the personal fields of
-- stays that ended before a cutoff replaced, one hotel (or, for webhook deliveries, one
-- partner) and one chunk per transaction. Every statement names its hotel or partner (one shard
-- under Citus), and the purge time comes in as a parameter: Citus evaluates no non-IMMUTABLE
-- function in a distributed UPDATE's expressions.
--
-- Events and webhook deliveries hold a booking as the partner read it (`data.booking`): due
-- once its `check_out` (ISO text) is before `cutoff_day`, purged once its
-- `guest_data_purged_at` is set. `purged` maps each of the five booking event types to the
-- fields it overwrites in `data.booking` (privacy.py: guests, contact... null, the marker
-- set). The types are written out, not a parameter, so that the partial indexes of migration
-- 0022, rebuilt with booking.hotel_confirmed by 0030, serve these statements.

-- name: hotels_with_guest_data_due(cutoff, cutoff_day)
-- The hotels that have bookings, received reservations or booking events still holding guest
-- data whose stay ended before `cutoff` (`cutoff_day`: the same day as ISO text, the form a
-- reservation's state and an event keep their dates in).
SELECT property_id FROM bookings
 WHERE guest_data_purged_at IS NULL AND check_out < :cutoff
UNION
SELECT property_id FROM reservations
 WHERE guest_data_purged_at IS NULL AND state IS NOT NULL
   AND state ->> 'check_out' < :cutoff_day
UNION
SELECT property_id FROM event_log
 WHERE type IN ('booking.confirmed', 'booking.cancelled', 'booking.hotel_confirmed',
                'hotel_booking.confirmed', 'hotel_booking.cancelled')
   AND (data #>> '{booking,guest_data_purged_at}') IS NULL
   AND (data #>> '{booking,check_out}') < :cutoff_day
 ORDER BY property_id;

-- name: purge_booking_guest_data(property_id, cutoff, purged_at, chunk_size)
-- Guests, contact, nationality, special requests and the cancel reason (free text, where
-- personal data hides) of up to `chunk_size` bookings; the dates, amounts, references, policy
-- and status stay. guests and contact keep their types (an empty array, an empty object):
-- `guest_data_purged_at` is the marker the answer reads. The outer WHERE repeats the
-- conditions: a row a concurrent cancel changed is judged again as it now is.
UPDATE bookings b
   SET guests = '[]'::jsonb, contact = '{}'::jsonb, nationality = NULL,
       special_requests = NULL, cancel_reason = NULL, guest_data_purged_at = :purged_at
 WHERE b.property_id = :property_id
   AND b.guest_data_purged_at IS NULL AND b.check_out < :cutoff
   AND b.id IN (SELECT d.id FROM bookings d
                 WHERE d.property_id = :property_id
                   AND d.guest_data_purged_at IS NULL AND d.check_out < :cutoff
                 ORDER BY d.id
                 LIMIT :chunk_size)
RETURNING b.id;

-- name: purge_reservation_guest_data(property_id, cutoff_day, purged_at, chunk_size)
-- The guests, contact and special requests of up to `chunk_size` received reservations'
-- current state; everything else of the state (stay, rooms, amounts, references) stays.
UPDATE reservations r
   SET state = r.state - 'guests' - 'contact' - 'special_requests',
       guest_data_purged_at = :purged_at
 WHERE r.property_id = :property_id
   AND r.guest_data_purged_at IS NULL AND r.state IS NOT NULL
   AND r.state ->> 'check_out' < :cutoff_day
   AND r.id IN (SELECT d.id FROM reservations d
                 WHERE d.property_id = :property_id
                   AND d.guest_data_purged_at IS NULL AND d.state IS NOT NULL
                   AND d.state ->> 'check_out' < :cutoff_day
                 ORDER BY d.id
                 LIMIT :chunk_size)
RETURNING r.id;

-- name: purge_delivery_guest_data(property_id, reservation_ids)!
-- The same fields of every kept delivery of those reservations, and a cancel's free-text
-- reason: a redelivery is still recognised by its reference (answered as a replay), its
-- `request_differs` then compares with the purged original.
UPDATE reservation_versions v
   SET payload = CASE WHEN v.kind = 'cancel' THEN v.payload - 'reason'
                      ELSE v.payload - 'guests' - 'contact' - 'special_requests' END
 WHERE v.property_id = :property_id AND v.reservation_id = ANY(:reservation_ids::bigint[]);

-- name: purge_event_guest_data(property_id, cutoff_day, purged, chunk_size)
-- Up to `chunk_size` of the hotel's booking events (every partner's: the booker's booking.*,
-- booking.hotel_confirmed included, the receivers' hotel_booking.*) whose stay ended before
-- the cutoff: `data.booking` takes the purged fields of its type, the rest of the event (its
-- id, type, time, the stay, amounts, references, its place in the log) stays. A cancel after
-- the booking's purge writes its events without guest data already.
UPDATE event_log e
   SET data = jsonb_set(e.data, '{booking}', (e.data -> 'booking') || (:purged::jsonb -> e.type))
 WHERE e.property_id = :property_id
   AND e.type IN ('booking.confirmed', 'booking.cancelled', 'booking.hotel_confirmed',
                  'hotel_booking.confirmed', 'hotel_booking.cancelled')
   AND (e.data #>> '{booking,guest_data_purged_at}') IS NULL
   AND (e.data #>> '{booking,check_out}') < :cutoff_day
   AND e.id IN (SELECT d.id FROM event_log d
                 WHERE d.property_id = :property_id
                   AND d.type IN ('booking.confirmed', 'booking.cancelled',
                                  'booking.hotel_confirmed', 'hotel_booking.confirmed',
                                  'hotel_booking.cancelled')
                   AND (d.data #>> '{booking,guest_data_purged_at}') IS NULL
                   AND (d.data #>> '{booking,check_out}') < :cutoff_day
                 ORDER BY d.id
                 LIMIT :chunk_size)
RETURNING e.id;

-- name: partners_with_deliveries_due(cutoff_day)
-- The partners whose webhook deliveries of booking events still hold guest data of a stay
-- that ended before the cutoff (deliveries are kept by partner, not by hotel).
SELECT DISTINCT partner_id FROM webhook_deliveries
 WHERE event_type IN ('booking.confirmed', 'booking.cancelled', 'booking.hotel_confirmed',
                      'hotel_booking.confirmed', 'hotel_booking.cancelled')
   AND (body::jsonb #>> '{data,booking,guest_data_purged_at}') IS NULL
   AND (body::jsonb #>> '{data,booking,check_out}') < :cutoff_day
 ORDER BY partner_id;

-- name: purge_webhook_delivery_guest_data(partner_id, cutoff_day, purged, chunk_size)
-- The same for up to `chunk_size` of the partner's deliveries, in the copy of the event each
-- keeps and sends (`body`, signed at each attempt): a retry or a replay sends the purged
-- event, as GET /events shows it. Status, attempts and claim stay: a sender holding a claim
-- records its outcome as before.
UPDATE webhook_deliveries w
   SET body = jsonb_set(w.body::jsonb, '{data,booking}',
                        (w.body::jsonb #> '{data,booking}') || (:purged::jsonb -> w.event_type)
                        )::text
 WHERE w.partner_id = :partner_id
   AND w.event_type IN ('booking.confirmed', 'booking.cancelled', 'booking.hotel_confirmed',
                        'hotel_booking.confirmed', 'hotel_booking.cancelled')
   AND (w.body::jsonb #>> '{data,booking,guest_data_purged_at}') IS NULL
   AND (w.body::jsonb #>> '{data,booking,check_out}') < :cutoff_day
   AND (w.endpoint_id, w.event_id) IN (
        SELECT d.endpoint_id, d.event_id FROM webhook_deliveries d
         WHERE d.partner_id = :partner_id
           AND d.event_type IN ('booking.confirmed', 'booking.cancelled',
                                'booking.hotel_confirmed', 'hotel_booking.confirmed',
                                'hotel_booking.cancelled')
           AND (d.body::jsonb #>> '{data,booking,guest_data_purged_at}') IS NULL
           AND (d.body::jsonb #>> '{data,booking,check_out}') < :cutoff_day
         ORDER BY d.seq
         LIMIT :chunk_size)
RETURNING w.event_id;
