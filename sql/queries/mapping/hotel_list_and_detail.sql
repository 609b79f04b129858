-- GET /mapping/hotels and GET /mapping/hotels/{hotelCode} (connectivity/mapping/service.py);
-- the hotel of the detail is found by find_hotel.sql.

-- name: list_active_hotels(partner_id, environment)
-- The caller's mapped properties whose distribution is active, in the partner's hotel codes.
SELECT pp.hotel_code, pr.name, pr.country, pr.currency, pr.max_child_age
  FROM partner_properties pp
  JOIN properties pr ON pr.id = pp.property_id
 WHERE pp.partner_id = :partner_id AND pp.environment = :environment
   AND pp.distribution_active
 ORDER BY pp.hotel_code;

-- name: mapped_room_types(mapping_id)
SELECT prt.room_type_code, rt.name, rt.max_occupancy
  FROM partner_room_types prt
  JOIN room_types rt ON rt.id = prt.room_type_id
 WHERE prt.mapping_id = :mapping_id
 ORDER BY prt.room_type_code;

-- name: mapped_rate_plans(mapping_id)
-- room_type_codes: the partner's codes of the mapped room types this plan sells.
SELECT prp.rate_plan_code, rp.name, rp.board_type, rp.currency, rp.base_adults, rp.max_adults,
       rp.max_children, rp.max_occupancy, rp.cancellation_policy,
       coalesce(array_agg(prt.room_type_code ORDER BY prt.room_type_code)
                FILTER (WHERE prt.room_type_code IS NOT NULL), '{}') AS room_type_codes
  FROM partner_rate_plans prp
  JOIN rate_plans rp ON rp.id = prp.rate_plan_id
  LEFT JOIN rate_plan_room_types rprt ON rprt.rate_plan_id = rp.id
  LEFT JOIN partner_room_types prt
         ON prt.mapping_id = prp.mapping_id AND prt.room_type_id = rprt.room_type_id
 WHERE prp.mapping_id = :mapping_id
 GROUP BY prp.rate_plan_code, rp.id
 ORDER BY prp.rate_plan_code;
