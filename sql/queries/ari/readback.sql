-- GET /ari (contract 11.1): the stored ARI of one hotel, per level, with the acceptance order
-- (batch seq x 8192 + item index) of the item that wrote each field, and the rooms sold.

-- name: readback_plans(mapping_id, room_type_codes, rate_plan_codes)
-- The caller's room types of the hotel, each with the caller's rate plans that sell it (a room
-- type without one has rate_plan_code NULL), narrowed to the given codes when not NULL.
SELECT prt.room_type_code, prt.room_type_id, prp.rate_plan_code, prp.rate_plan_id,
       rp.currency
  FROM partner_room_types prt
  LEFT JOIN (rate_plan_room_types rprt
             JOIN partner_rate_plans prp ON prp.rate_plan_id = rprt.rate_plan_id
             JOIN rate_plans rp ON rp.id = prp.rate_plan_id)
    ON rprt.room_type_id = prt.room_type_id AND prp.mapping_id = prt.mapping_id
   AND (:rate_plan_codes::text[] IS NULL OR prp.rate_plan_code = ANY(:rate_plan_codes::text[]))
 WHERE prt.mapping_id = :mapping_id
   AND (:room_type_codes::text[] IS NULL OR prt.room_type_code = ANY(:room_type_codes::text[]))
 ORDER BY prt.room_type_code, prp.rate_plan_code;

-- name: readback_room_type_days(property_id, room_type_ids, first_date, last_date)
SELECT room_type_id, date, available, available_seq, closed, closed_seq, min_stay,
       min_stay_seq, max_stay, max_stay_seq, closed_to_arrival, closed_to_arrival_seq,
       closed_to_departure, closed_to_departure_seq
  FROM room_type_days
 WHERE property_id = :property_id AND date BETWEEN :first_date AND :last_date
   AND room_type_id = ANY(:room_type_ids::bigint[]);

-- name: readback_rate_plan_days(property_id, room_type_ids, rate_plan_ids, first_date, last_date)
SELECT room_type_id, rate_plan_id, date, rate, rate_seq, single_rate, single_rate_seq,
       extra_adult_rate, extra_adult_rate_seq, extra_child_rate, extra_child_rate_seq, closed,
       closed_seq, min_stay, min_stay_seq, max_stay, max_stay_seq, closed_to_arrival,
       closed_to_arrival_seq, closed_to_departure, closed_to_departure_seq
  FROM rate_plan_days
 WHERE property_id = :property_id AND date BETWEEN :first_date AND :last_date
   AND room_type_id = ANY(:room_type_ids::bigint[])
   AND rate_plan_id = ANY(:rate_plan_ids::bigint[]);

-- name: rooms_sold(property_id, room_type_ids, first_date, last_date)
-- Rooms per (room type, night) held by confirmed pull bookings and by the unreleased nights of
-- pushed reservations (a cancel or a modify releases them), every partner together. A pushed
-- reservation counts every room it sold, also those inventory could not cover (the shortfall
-- is in reconciliation).
WITH held AS (
    SELECT b.room_type_id, d::date AS date, b.rooms
      FROM bookings b,
           generate_series(greatest(b.check_in, :first_date::date),
                           least(b.check_out - 1, :last_date::date), interval '1 day') AS d
     WHERE b.property_id = :property_id AND b.status = 'confirmed'
       AND b.check_out > :first_date::date AND b.check_in <= :last_date::date
       AND b.room_type_id = ANY(:room_type_ids::bigint[])
    UNION ALL
    SELECT n.room_type_id, n.date, n.wanted
      FROM reservation_nights n
     WHERE n.property_id = :property_id AND n.released_at IS NULL
       AND n.date BETWEEN :first_date AND :last_date
       AND n.room_type_id = ANY(:room_type_ids::bigint[])
)
SELECT room_type_id, date, sum(rooms)::integer AS rooms_sold
  FROM held
 GROUP BY room_type_id, date;

-- name: batches_by_seq(seqs)
-- The batches named by acceptance orders (seq x 8192 + index, divided back by the caller).
SELECT seq, id, partner_id, environment FROM ari_batches WHERE seq = ANY(:seqs::bigint[]);
