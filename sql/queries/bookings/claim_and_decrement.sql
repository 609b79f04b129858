-- POST /bookings in one transaction (connectivity/bookings/create.py): claim the reference
-- (its property found by mapping/find_hotel.sql), take every night, store the booking. A cancel
-- gives the nights back through change_inventory too.

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
-- holds are updated, and the condition is judged again on the row as locked. Like every writer
-- of `available`, it stamps updated_at (not indexed: the update stays a HOT one).
WITH locked AS MATERIALIZED (
    SELECT date FROM room_type_days
     WHERE property_id = :property_id AND room_type_id = :room_type_id
       AND date >= :check_in AND date < :check_out
     ORDER BY date
       FOR UPDATE
)
UPDATE room_type_days d
   SET available = d.available + :change, updated_at = now()
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
