-- name: offers(mapping_id, room_type_codes, rate_plan_codes)
-- The (room type, rate plan) pairs a mapping offers, in the partner's codes, narrowed to the
-- given codes when the arrays are not NULL; with what pricing needs of each. The read model
-- loads the same for every mapping of a property (search_model.sql model_rate_offers): a
-- change here is made there too (test_rates_grid.py's endpoint test compares the two).
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

-- name: rate_days(property_id, room_type_ids, rate_plan_ids, first_date, last_date, singles, extra_adults, children)
-- The same day rows as room_type_days and rate_plan_days above, for rates' fast path
-- (connectivity/availability/rates_grid.py): one int8 array per day table, a row of it per
-- day row, sent in its binary form (array_send), so that the web process takes ~600 rows as
-- two values that numpy reads whole (np.frombuffer) instead of building a dict per row.
-- `day` counts from first_date. Money is in integer millionths: -1 never sent; -2 a billion
-- and more, or stored with more than six decimals (its scale: the cheap test, where trim_scale
-- would cost a numeric per value; a value stored as 1.5000000 goes to the reference too),
-- which the fast path does not hold (rates then reads the rows above instead).
--   plan, 12 a row: room type, rate plan, day, rate, single_rate, extra_adult_rate,
--         extra_child_rate, closed, min_stay, max_stay, CTA, CTD (flags 0/1, stays 0 if unset)
--   room, 8 a row: room type, day, available (0 when never sent), closed, min_stay, max_stay,
--         CTA, CTD
-- A price the party cannot use is sent as never sent (-1) without being converted, which is
-- most of this statement's cost: single_rate unless a room has one adult (:singles),
-- extra_adult_rate unless a room has more adults than some plan's base (:extra_adults),
-- extra_child_rate unless a room has children (:children); pricing never reads them then.
-- No element is NULL, so every one is sent as its length (8) and its value. Both branches
-- name one property: one shard on Citus, where the statement is routed whole.
SELECT 'plan' AS days_of, array_send(array_agg(ARRAY[
           d.room_type_id, d.rate_plan_id, d.date - :first_date::date,
           CASE WHEN d.rate IS NULL THEN -1 WHEN scale(d.rate) <= 6 AND d.rate < 1e9
                THEN (d.rate * 1000000)::bigint ELSE -2 END,
           CASE WHEN d.single_rate IS NULL OR NOT :singles::boolean THEN -1
                WHEN scale(d.single_rate) <= 6 AND d.single_rate < 1e9
                THEN (d.single_rate * 1000000)::bigint ELSE -2 END,
           CASE WHEN d.extra_adult_rate IS NULL OR NOT :extra_adults::boolean THEN -1
                WHEN scale(d.extra_adult_rate) <= 6 AND d.extra_adult_rate < 1e9
                THEN (d.extra_adult_rate * 1000000)::bigint ELSE -2 END,
           CASE WHEN d.extra_child_rate IS NULL OR NOT :children::boolean THEN -1
                WHEN scale(d.extra_child_rate) <= 6 AND d.extra_child_rate < 1e9
                THEN (d.extra_child_rate * 1000000)::bigint ELSE -2 END,
           coalesce(d.closed, false)::int, coalesce(d.min_stay, 0), coalesce(d.max_stay, 0),
           coalesce(d.closed_to_arrival, false)::int,
           coalesce(d.closed_to_departure, false)::int]::bigint[])) AS days
  FROM rate_plan_days d
 WHERE d.property_id = :property_id AND d.date BETWEEN :first_date AND :last_date
   AND d.room_type_id = ANY(:room_type_ids::bigint[])
   AND d.rate_plan_id = ANY(:rate_plan_ids::bigint[])
UNION ALL
SELECT 'room', array_send(array_agg(ARRAY[
           d.room_type_id, d.date - :first_date::date, coalesce(d.available, 0),
           coalesce(d.closed, false)::int, coalesce(d.min_stay, 0), coalesce(d.max_stay, 0),
           coalesce(d.closed_to_arrival, false)::int,
           coalesce(d.closed_to_departure, false)::int]::bigint[]))
  FROM room_type_days d
 WHERE d.property_id = :property_id AND d.date BETWEEN :first_date AND :last_date
   AND d.room_type_id = ANY(:room_type_ids::bigint[]);
