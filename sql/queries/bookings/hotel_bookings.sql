-- The hotel's side of a pull booking (contract 13.2; connectivity/bookings/hotel_bookings.py,
-- acknowledge.py, overdue.py): the bookings other partners made on the hotels a partner
-- receives bookings for (`receives_bookings`), in that partner's codes, and the hotel's
-- acknowledgement of them, which lives on the booking's row (migration 0030).
--
-- The receiver's codes come from its mapping of the hotel as hotel_receivers.sql finds them for
-- the hotel_booking.* events (a room type or plan it maps none of is NULL); each statement
-- below joins the same way. Reference tables (mappings, partners) joined to the bookings: a
-- read fans out to the shards of the receiver's hotels under Citus; the acknowledgement itself
-- names its booking's property (one shard).

-- name: find_hotel_booking(receiver_id, environment, confirmation_number)^
-- One hotel booking of the receiver by its confirmation number (bookings_confirmation_number_key
-- per hotel): none when it is not a booking on one of the receiver's hotels of its
-- environment, or is the receiver's own.
SELECT b.*, pp.hotel_code AS receiver_hotel_code,
       prt.room_type_code AS receiver_room_type_code,
       prp.rate_plan_code AS receiver_rate_plan_code, booker.name AS channel_name
  FROM partner_properties pp
  JOIN bookings b
    ON b.property_id = pp.property_id AND b.confirmation_number = :confirmation_number
  JOIN partners booker ON booker.id = b.partner_id
  LEFT JOIN partner_room_types prt ON prt.mapping_id = pp.id AND prt.room_type_id = b.room_type_id
  LEFT JOIN partner_rate_plans prp ON prp.mapping_id = pp.id AND prp.rate_plan_id = b.rate_plan_id
 WHERE pp.partner_id = :receiver_id AND pp.environment = :environment AND pp.receives_bookings
   AND b.partner_id <> :receiver_id;

-- name: list_hotel_bookings(receiver_id, environment, property_id, status, acknowledged_only, after_created_at, after_id, page_size)
-- Up to page_size + 1 of the receiver's hotel bookings, oldest created first, after the
-- (created_at, id) a cursor carries (bookings_hotel_listing_idx per hotel); property_id: the
-- receiver's mapping of the hotel code asked for. acknowledged_only: those whose current status
-- was acknowledged. The unacknowledged ones are list_unacknowledged_hotel_bookings'.
SELECT b.*, pp.hotel_code AS receiver_hotel_code,
       prt.room_type_code AS receiver_room_type_code,
       prp.rate_plan_code AS receiver_rate_plan_code, booker.name AS channel_name
  FROM partner_properties pp
  JOIN bookings b ON b.property_id = pp.property_id
  JOIN partners booker ON booker.id = b.partner_id
  LEFT JOIN partner_room_types prt ON prt.mapping_id = pp.id AND prt.room_type_id = b.room_type_id
  LEFT JOIN partner_rate_plans prp ON prp.mapping_id = pp.id AND prp.rate_plan_id = b.rate_plan_id
 WHERE pp.partner_id = :receiver_id AND pp.environment = :environment AND pp.receives_bookings
   AND b.partner_id <> :receiver_id
   AND (:property_id::bigint IS NULL OR pp.property_id = :property_id::bigint)
   AND (:status::text IS NULL OR b.status = :status::text)
   AND (NOT :acknowledged_only::boolean OR b.hotel_acknowledged_status = b.status)
   AND (:after_created_at::timestamptz IS NULL
        OR (b.created_at, b.id) > (:after_created_at::timestamptz, :after_id::bigint))
 ORDER BY b.created_at, b.id
 LIMIT :page_size + 1;

-- name: list_unacknowledged_hotel_bookings(receiver_id, environment, property_id, status, after_created_at, after_id, page_size)
-- The same for the bookings whose current status no hotel has acknowledged, through
-- bookings_unacknowledged_idx: the condition is written exactly as that index's predicate so
-- that the planner may use it whatever the parameters, and the page reads only unacknowledged
-- bookings, however many were acknowledged before.
SELECT b.*, pp.hotel_code AS receiver_hotel_code,
       prt.room_type_code AS receiver_room_type_code,
       prp.rate_plan_code AS receiver_rate_plan_code, booker.name AS channel_name
  FROM partner_properties pp
  JOIN bookings b ON b.property_id = pp.property_id
  JOIN partners booker ON booker.id = b.partner_id
  LEFT JOIN partner_room_types prt ON prt.mapping_id = pp.id AND prt.room_type_id = b.room_type_id
  LEFT JOIN partner_rate_plans prp ON prp.mapping_id = pp.id AND prp.rate_plan_id = b.rate_plan_id
 WHERE pp.partner_id = :receiver_id AND pp.environment = :environment AND pp.receives_bookings
   AND b.partner_id <> :receiver_id
   AND b.hotel_acknowledged_status IS DISTINCT FROM b.status
   AND (:property_id::bigint IS NULL OR pp.property_id = :property_id::bigint)
   AND (:status::text IS NULL OR b.status = :status::text)
   AND (:after_created_at::timestamptz IS NULL
        OR (b.created_at, b.id) > (:after_created_at::timestamptz, :after_id::bigint))
 ORDER BY b.created_at, b.id
 LIMIT :page_size + 1;

-- name: acknowledge_booking(property_id, id, status, hotel_confirmation_code, acknowledged_at)^
-- The hotel has loaded the booking in `status`: one conditional UPDATE on the booking's shard,
-- and the only writer of the acknowledgement. It changes the row only when the booking is in
-- that status now AND the acknowledgement says something new (a status not acknowledged yet,
-- or another hotel_confirmation_code; NULL keeps the stored code): no row back means nothing
-- was stored (a status that changed, or a repeat), and the caller reads the row to tell which.
--
-- The row is locked first (`held`, a router FOR UPDATE), which waits for a concurrent cancel or
-- acknowledgement and then returns the row as that one left it. The conditions are judged on
-- `held`, never on `b`: `b` is scanned under the statement's snapshot, taken before the wait,
-- and would show the row as it was then (an acknowledgement of `cancelled` queued behind the
-- cancel would find `confirmed` and store nothing). The new values are computed from `b`'s own
-- columns, never from `held` or the parameters' status: PostgreSQL checks the CHECK constraints
-- on the row computed from the stale version first, then computes it again from the current
-- one (which `held` is: this transaction holds its lock), and a mix of the two would break
-- bookings_hotel_acknowledgement (a cancellation acknowledged on a confirmed row). So of two
-- acknowledgements at once the second sees the first one's values, one of them stores and
-- announces; a cancel and an acknowledgement are judged in the order they took the lock.
-- first_confirmed and code_changed: what booking.hotel_confirmed announces.
WITH held AS MATERIALIZED (
    SELECT id, status, hotel_acknowledged_status, hotel_acknowledged_at, hotel_confirmation_code
      FROM bookings
     WHERE property_id = :property_id AND id = :id
       FOR UPDATE
)
UPDATE bookings b
   SET hotel_acknowledged_status = b.status,
       hotel_status_acknowledged_at = CASE WHEN b.hotel_acknowledged_status = b.status
                                           THEN b.hotel_status_acknowledged_at
                                           ELSE :acknowledged_at::timestamptz END,
       hotel_acknowledged_at = CASE WHEN b.status = 'confirmed'
                                    THEN coalesce(b.hotel_acknowledged_at,
                                                  :acknowledged_at::timestamptz)
                                    ELSE b.hotel_acknowledged_at END,
       hotel_confirmation_code = coalesce(:hotel_confirmation_code::text,
                                          b.hotel_confirmation_code)
  FROM held h
 WHERE b.property_id = :property_id AND b.id = h.id AND h.status = :status::text
   AND (h.hotel_acknowledged_status IS DISTINCT FROM h.status
        OR h.hotel_confirmation_code IS DISTINCT FROM
           coalesce(:hotel_confirmation_code::text, h.hotel_confirmation_code))
RETURNING b.*,
          (h.hotel_acknowledged_at IS NULL AND b.hotel_acknowledged_at IS NOT NULL)
              AS first_confirmed,
          h.hotel_confirmation_code IS DISTINCT FROM b.hotel_confirmation_code AS code_changed;

-- name: overdue_hotel_bookings(partner_code, due_before)
-- Every hotel booking not acknowledged in its current status and waiting since before
-- `due_before` (hotel_acknowledgement_due_since, migration 0031), of every receiver or of the
-- one partner, oldest wait first: `flask --app app hotel-bookings overdue`. Reads only
-- unacknowledged bookings (bookings_unacknowledged_idx, per receiving hotel).
SELECT receiver.code AS partner, pp.environment, pp.hotel_code, b.confirmation_number,
       b.status, booker.code AS booked_by, b.created_at, b.cancelled_at,
       hotel_acknowledgement_due_since(b.hotel_acknowledged_status, b.created_at,
                                       b.cancelled_at) AS waiting_since
  FROM partner_properties pp
  JOIN partners receiver ON receiver.id = pp.partner_id
  JOIN bookings b ON b.property_id = pp.property_id
  JOIN partners booker ON booker.id = b.partner_id
 WHERE pp.receives_bookings AND b.partner_id <> pp.partner_id
   AND (:partner_code::text IS NULL OR receiver.code = :partner_code::text)
   AND b.hotel_acknowledged_status IS DISTINCT FROM b.status
   AND hotel_acknowledgement_due_since(b.hotel_acknowledged_status, b.created_at,
                                       b.cancelled_at) < :due_before
 ORDER BY waiting_since, receiver.code, b.confirmation_number;
