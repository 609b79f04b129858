-- The hotel side of a pull booking (contract 12.2, hotel_booking.*;
-- connectivity/bookings/booking_events.py).

-- name: hotel_receivers(property_id, partner_id, room_type_id, rate_plan_id)
-- The partners whose mapping of the booking's hotel `receives_bookings`, other than the booking
-- partner, each with its own codes of the hotel, room type and rate plan (null where it maps
-- none), and the booking partner's display name. Reference tables only (the partial index of
-- receivers): no shard is read.
SELECT pp.partner_id, pp.hotel_code, prt.room_type_code, prp.rate_plan_code,
       (SELECT name FROM partners WHERE id = :partner_id) AS channel_name
  FROM partner_properties pp
  LEFT JOIN partner_room_types prt
    ON prt.mapping_id = pp.id AND prt.room_type_id = :room_type_id
  LEFT JOIN partner_rate_plans prp
    ON prp.mapping_id = pp.id AND prp.rate_plan_id = :rate_plan_id
 WHERE pp.property_id = :property_id AND pp.receives_bookings
   AND pp.partner_id <> :partner_id
 ORDER BY pp.partner_id;
