-- GET /bookings/{reference} and POST /bookings/{reference}/cancel
-- (connectivity/bookings/manage.py): the booking found through its claim, on its own shard.

-- name: find_claim(partner_id, environment, partner_reference)^
-- Where the caller's booking of a reference lives. A committed claim always has its booking,
-- but on Citus the booking may show a moment after the claim (two workers, each committing on
-- its own): the reader reads it again for a bounded time (store/claimed.py), never a 404.
SELECT booking_id, property_id FROM booking_claims
 WHERE partner_id = :partner_id AND environment = :environment
   AND partner_reference = :partner_reference;

-- name: find_booking(property_id, booking_id)^
-- A booking of the caller (found through its claim), whatever its mapping's distribution state
-- (a pause hides a property from selling, not from the bookings already made).
SELECT b.*, pr.timezone
  FROM bookings b
  JOIN properties pr ON pr.id = b.property_id
 WHERE b.property_id = :property_id AND b.id = :booking_id;

-- name: mark_cancelled(property_id, id, cancelled_at, penalty_amount, cancel_reason)^
-- The transition itself is the guard: of two concurrent cancels only one gets the row back,
-- and only that one releases the inventory. A booking whose guest data was purged keeps no
-- free-text reason (connectivity/operator/privacy.py). A cancellation waits for the hotel's
-- acknowledgement of its own (contract 13.2; migration 0030's CHECK).
UPDATE bookings
   SET status = 'cancelled', hotel_acknowledgement_due = true,
       cancelled_at = :cancelled_at, penalty_amount = :penalty_amount,
       cancel_reason = CASE WHEN guest_data_purged_at IS NULL THEN :cancel_reason END
 WHERE property_id = :property_id AND id = :id AND status = 'confirmed'
RETURNING *;
