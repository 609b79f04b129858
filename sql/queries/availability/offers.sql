-- name: offers(mapping_id, room_type_codes, rate_plan_codes)
-- The (room type, rate plan) pairs a mapping offers, in the partner's codes, narrowed to the
-- given codes when the arrays are not NULL; with what pricing needs of each.
SELECT prt.room_type_code, rt.id AS room_type_id, rt.max_occupancy AS room_type_max_occupancy,
       prp.rate_plan_code, rp.id AS rate_plan_id, rp.board_type, rp.currency, rp.base_adults,
       rp.max_adults, rp.max_children, rp.max_occupancy, rp.allowed_nationalities,
       rp.blocked_nationalities, rp.cancellation_policy
  FROM partner_room_types prt
  JOIN room_types rt ON rt.id = prt.room_type_id
  JOIN rate_plan_room_types rprt ON rprt.room_type_id = prt.room_type_id
  JOIN partner_rate_plans prp
    ON prp.mapping_id = prt.mapping_id AND prp.rate_plan_id = rprt.rate_plan_id
  JOIN rate_plans rp ON rp.id = prp.rate_plan_id
 WHERE prt.mapping_id = :mapping_id
   AND (:room_type_codes::text[] IS NULL OR prt.room_type_code = ANY(:room_type_codes::text[]))
   AND (:rate_plan_codes::text[] IS NULL OR prp.rate_plan_code = ANY(:rate_plan_codes::text[]))
 ORDER BY prt.room_type_code, prp.rate_plan_code;

-- name: room_type_days(property_id, room_type_ids, first_date, last_date)
SELECT room_type_id, date, available, closed, min_stay, max_stay, closed_to_arrival,
       closed_to_departure
  FROM room_type_days
 WHERE property_id = :property_id AND date BETWEEN :first_date AND :last_date
   AND room_type_id = ANY(:room_type_ids::bigint[]);

-- name: rate_plan_days(property_id, room_type_ids, rate_plan_ids, first_date, last_date)
SELECT room_type_id, rate_plan_id, date, rate, single_rate, extra_adult_rate, extra_child_rate,
       closed, min_stay, max_stay, closed_to_arrival, closed_to_departure
  FROM rate_plan_days
 WHERE property_id = :property_id AND date BETWEEN :first_date AND :last_date
   AND room_type_id = ANY(:room_type_ids::bigint[]) AND rate_plan_id = ANY(:rate_plan_ids::bigint[]);

-- name: fx_rates_of(currency)
-- The FX rows that can convert into or out of a currency (no cross rates: contract section 8).
SELECT base, quote, rate FROM fx_rates WHERE base = :currency OR quote = :currency;
