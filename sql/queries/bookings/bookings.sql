-- name: booked_property(partner_id, environment, hotel_code)$
-- The property the claim will say the booking lives with: the caller's mapping of the hotel
-- code, active or not (NULL when unmapped: the booking then answers 404 after the claim, and
-- rolls the claim back).
SELECT property_id FROM partner_properties
 WHERE partner_id = :partner_id AND environment = :environment AND hotel_code = :hotel_code;

-- name: claim_reference(partner_id, environment, partner_reference, property_id)^
-- The first statement of POST /bookings that writes. A concurrent duplicate waits here on the
-- primary key until the first transaction ends; no row back means the reference is already a
-- booking. The claim is the only home of the reference's uniqueness (under Citus it is sharded
-- by partner, the booking by property: both commit together in one transaction, with two-phase
-- commit when their shards differ). The booking id is drawn here from the one sequence.
INSERT INTO booking_claims (partner_id, environment, partner_reference, booking_id, property_id)
VALUES (:partner_id, :environment, :partner_reference, nextval('bookings_id_seq'), :property_id)
ON CONFLICT (partner_id, environment, partner_reference) DO NOTHING
RETURNING booking_id;

-- name: find_claim(partner_id, environment, partner_reference)^
-- Where the caller's booking of a reference lives (a committed claim always has its booking).
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

-- name: change_inventory(property_id, room_type_id, check_in, check_out, change)
-- Every night of the stay in one statement: `change` rooms added to each (negative: a booking
-- takes them, positive: a cancellation gives them back), each night only where it leaves
-- `available` at zero or more. A booking compares the dates returned with its nights and rolls
-- back unless all of them came back. A night with no inventory row, or a NULL one, is not
-- returned: nothing was ever loaded, so it is sold out, and nothing is given back to it.
-- The nights are locked first, in date order (the (date, room type) order every writer of
-- room_type_days uses), so two overlapping stays queue behind each other instead of
-- deadlocking. The order must not come from the plan: once the table is analysed while small,
-- a sequential scan visits rows in heap order, which an update reshuffles. Only rows the CTE
-- holds are updated, and the condition is judged again on the row as locked.
WITH locked AS MATERIALIZED (
    SELECT date FROM room_type_days
     WHERE property_id = :property_id AND room_type_id = :room_type_id
       AND date >= :check_in AND date < :check_out
     ORDER BY date
       FOR UPDATE
)
UPDATE room_type_days d
   SET available = d.available + :change
  FROM locked l
 WHERE d.property_id = :property_id AND d.room_type_id = :room_type_id AND d.date = l.date
   AND d.available + :change >= 0
RETURNING d.date;

-- name: insert_booking(id, partner_id, environment, partner_reference, confirmation_number, request_hash, mapping_id, property_id, room_type_id, rate_plan_id, hotel_code, room_type_code, rate_plan_code, check_in, check_out, rooms, total_amount, currency, nights, cancellation_policy, policy_currency, policy_fx_rate, nationality, guests, contact, special_requests, arrival_time)^
INSERT INTO bookings (id, partner_id, environment, partner_reference, confirmation_number,
                      request_hash, status, mapping_id, property_id, room_type_id, rate_plan_id,
                      hotel_code, room_type_code, rate_plan_code, check_in, check_out, rooms,
                      total_amount, currency, nights, cancellation_policy, policy_currency,
                      policy_fx_rate, nationality, guests, contact, special_requests,
                      arrival_time)
VALUES (:id, :partner_id, :environment, :partner_reference, :confirmation_number,
        :request_hash, 'confirmed', :mapping_id, :property_id, :room_type_id, :rate_plan_id,
        :hotel_code, :room_type_code, :rate_plan_code, :check_in, :check_out, :rooms,
        :total_amount, :currency, :nights, :cancellation_policy, :policy_currency,
        :policy_fx_rate, :nationality, :guests, :contact, :special_requests, :arrival_time)
RETURNING *;

-- name: mark_cancelled(property_id, id, cancelled_at, penalty_amount, cancel_reason)^
-- The transition itself is the guard: of two concurrent cancels only one gets the row back,
-- and only that one releases the inventory.
UPDATE bookings
   SET status = 'cancelled', cancelled_at = :cancelled_at, penalty_amount = :penalty_amount,
       cancel_reason = :cancel_reason
 WHERE property_id = :property_id AND id = :id AND status = 'confirmed'
RETURNING *;
