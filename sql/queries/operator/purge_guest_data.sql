-- `flask --app app privacy purge` (connectivity/operator/privacy.py): the personal fields of
-- stays that ended before a cutoff replaced, one hotel and one chunk per transaction. Every
-- statement names its hotel (one shard under Citus), and the purge time comes in as a
-- parameter: Citus evaluates no non-IMMUTABLE function in a distributed UPDATE's expressions.

-- name: hotels_with_guest_data_due(cutoff, cutoff_day)
-- The hotels that have bookings or received reservations still holding guest data whose stay
-- ended before `cutoff` (`cutoff_day`: the same day as ISO text, the form a reservation's state
-- keeps its dates in).
SELECT property_id FROM bookings
 WHERE guest_data_purged_at IS NULL AND check_out < :cutoff
UNION
SELECT property_id FROM reservations
 WHERE guest_data_purged_at IS NULL AND state IS NOT NULL
   AND state ->> 'check_out' < :cutoff_day
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
