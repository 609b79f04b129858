-- name: search_hotels(partner_id, environment, hotel_codes, check_in, check_out, rooms, occupancy, nationality, currency, minor_units, now)
-- POST /availability/search in one statement for up to 200 hotels: for each of the caller's
-- mapped, active hotels among :hotel_codes, whether some (room type, rate plan) is sellable for
-- the stay and the cheapest whole-stay total. These are the rules of connectivity.pricing
-- (contract section 8) restated over sets, so that 200 hotels x 30 offers x N nights never
-- travel to Python; tests/discovery/test_search_matches_rates.py holds the two to one answer.
--   :occupancy    jsonb [{"entry", "qty", "adults", "ages": [int|null, ...]}], each distinct room
--   :minor_units  jsonb {"EUR": 2, "JPY": 0, ...} for every ISO 4217 code (babel's CLDR data)
--   :currency     the requested currency, or NULL for each hotel's own
--
-- Shape, and why: everything about a hotel that does not depend on the date (its party, the
-- room types and plans that may be sold, each plan's price factors) is first folded into one
-- row per hotel, with arrays. The day tables are then read by one index range per hotel, in
-- LATERAL subqueries that join nothing but those arrays. No plan the optimizer can pick turns
-- this into nested loops over thousands of rows; letting it join CTEs of misestimated size
-- once took 1.5 s for 30 ms of work.
WITH stay AS (
    SELECT :check_in::date AS check_in, :check_out::date AS check_out,
           :check_out::date - :check_in::date AS nights, :rooms::int AS rooms
),
-- The hotels, each with the requested rooms as it prices them: a child older than the
-- property's max_child_age counts and pays as an adult; a child of unknown age is a child.
hotel AS MATERIALIZED (
    SELECT pp.hotel_code, pp.id AS mapping_id, pr.id AS property_id, pr.timezone,
           coalesce(:currency::text, pr.currency) AS target,
           (:minor_units::jsonb ->> coalesce(:currency::text, pr.currency))::int AS target_minor,
           (:now::timestamptz AT TIME ZONE pr.timezone)::date > :check_in::date AS check_in_past,
           party.*
      FROM partner_properties pp
      JOIN properties pr ON pr.id = pp.property_id
     CROSS JOIN LATERAL (
        WITH room AS (
            SELECT o.qty, o.adults + count(*) FILTER (WHERE a.age > pr.max_child_age) AS adults,
                   count(a.ord) FILTER (WHERE a.age IS NULL OR a.age <= pr.max_child_age)
                   AS children
              FROM jsonb_to_recordset(:occupancy::jsonb) AS o(entry int, qty int, adults int,
                                                               ages int[])
              LEFT JOIN LATERAL unnest(o.ages) WITH ORDINALITY AS a(age, ord) ON true
             GROUP BY o.entry, o.qty, o.adults
        )
        SELECT min(adults) AS fewest_adults, max(adults) AS most_adults,
               max(children) AS most_children, max(adults + children) AS most_guests,
               -- rooms priced at single_rate where a night has one
               coalesce(sum(qty) FILTER (WHERE adults = 1), 0) AS lone_adult_rooms,
               sum(qty * children) AS children,
               -- [b]: the adults above a plan's base_adults b, summed over the rooms
               ARRAY(SELECT (SELECT sum(r.qty * greatest(r.adults - b, 0)) FROM room r)
                       FROM generate_series(1, 20) AS b ORDER BY b) AS extra_adults_by_base
          FROM room
     ) party
     WHERE pp.partner_id = :partner_id AND pp.environment = :environment
       AND pp.distribution_active AND pp.hotel_code = ANY(:hotel_codes::text[])
),
-- Each mapped rate plan of each hotel: its multiplier into the target currency (NULL when no
-- FX rate exists), its minor units, the extra adults it charges, and whether its rules admit
-- the party.
plan AS MATERIALIZED (
    SELECT h.property_id, h.mapping_id, h.most_guests, rp.id AS rate_plan_id,
           CASE WHEN rp.currency = h.target THEN 1
                WHEN fx.rate IS NOT NULL THEN fx.rate
                -- the inverse as connectivity.pricing.money.FxTable computes it
                ELSE round(1::numeric(40, 30) / inv.rate, 16) END AS fx_rate,
           (:minor_units::jsonb ->> rp.currency)::int AS minor_units,
           h.extra_adults_by_base[rp.base_adults] AS extra_adults,
           h.fewest_adults >= 1 AND h.most_adults <= rp.max_adults
               AND h.most_children <= rp.max_children AND h.most_guests <= rp.max_occupancy
               AND (cardinality(rp.allowed_nationalities) + cardinality(rp.blocked_nationalities) = 0
                    OR (:nationality::text IS NOT NULL
                        AND (cardinality(rp.allowed_nationalities) = 0
                             OR :nationality::text = ANY(rp.allowed_nationalities))
                        AND NOT :nationality::text = ANY(rp.blocked_nationalities))) AS admits
      FROM hotel h
      JOIN partner_rate_plans prp ON prp.mapping_id = h.mapping_id
      JOIN rate_plans rp ON rp.id = prp.rate_plan_id
      LEFT JOIN fx_rates fx ON fx.base = rp.currency AND fx.quote = h.target
      LEFT JOIN fx_rates inv ON inv.base = h.target AND inv.quote = rp.currency
),
-- One row per hotel: the sellable plans' factors as parallel arrays, and the offers as keys
-- (rate_plan_id << 32 | room_type_id): room types the partner maps, the plan sells, and big
-- enough for the party's largest room.
plans AS MATERIALIZED (
    SELECT pl.*,
           ARRAY(SELECT (rprt.rate_plan_id << 32) | rprt.room_type_id
                   FROM rate_plan_room_types rprt
                   JOIN partner_room_types prt
                     ON prt.mapping_id = pl.mapping_id AND prt.room_type_id = rprt.room_type_id
                   JOIN room_types rt ON rt.id = rprt.room_type_id
                  WHERE rprt.rate_plan_id = ANY(pl.ids) AND rt.max_occupancy >= pl.most_guests
           ) AS offers
      FROM (SELECT property_id, mapping_id, most_guests,
                   bool_or(fx_rate IS NULL) AS unconvertible,
                   array_agg(rate_plan_id) FILTER (WHERE admits AND fx_rate IS NOT NULL) AS ids,
                   array_agg(fx_rate) FILTER (WHERE admits AND fx_rate IS NOT NULL) AS fx_rates,
                   array_agg(minor_units) FILTER (WHERE admits AND fx_rate IS NOT NULL)
                   AS minor_units,
                   array_agg(extra_adults) FILTER (WHERE admits AND fx_rate IS NOT NULL)
                   AS extra_adults
              FROM plan
             GROUP BY property_id, mapping_id, most_guests) pl
)
SELECT h.hotel_code, h.target AS currency, h.timezone, h.check_in_past,
       coalesce(ps.unconvertible, false) AS currency_unsupported,
       best.total AS lowest_total_amount
  FROM hotel h
 CROSS JOIN stay s
  LEFT JOIN plans ps ON ps.property_id = h.property_id
  -- Room types with the rooms for every night and no room-type-level restriction in the way.
  LEFT JOIN LATERAL (
    SELECT ARRAY(
        SELECT d.room_type_id
          FROM room_type_days d
         WHERE d.property_id = h.property_id AND d.date BETWEEN s.check_in AND s.check_out
         GROUP BY d.room_type_id
        HAVING count(*) FILTER (WHERE d.date < s.check_out AND d.available >= s.rooms
                                      AND d.closed IS NOT TRUE) = s.nights
           AND count(*) FILTER (WHERE d.date = s.check_in AND (d.closed_to_arrival
                                      OR d.min_stay > s.nights OR d.max_stay < s.nights)) = 0
           AND count(*) FILTER (WHERE d.date = s.check_out AND d.closed_to_departure) = 0
    ) AS ids
  ) open_room_types ON true
  -- The cheapest offer open every night at rate-plan level too. Each night's amount for all
  -- rooms is rounded in the plan's currency, converted, rounded again; the total is their sum.
  LEFT JOIN LATERAL (
    SELECT min(offer.total) AS total
      FROM (
        SELECT sum(n.amount_out) AS total
          FROM rate_plan_days d
         CROSS JOIN LATERAL (SELECT array_position(ps.ids, d.rate_plan_id) AS i) pi
         CROSS JOIN LATERAL (SELECT ps.fx_rates[pi.i] AS fx_rate, ps.minor_units[pi.i] AS minor_units,
                                    ps.extra_adults[pi.i] AS extra_adults) p
         CROSS JOIN LATERAL (
            SELECT CASE WHEN d.date = s.check_out THEN NULL
                        WHEN d.single_rate IS NOT NULL AND h.lone_adult_rooms > 0
                        THEN d.single_rate * h.lone_adult_rooms
                             + CASE WHEN s.rooms > h.lone_adult_rooms
                                    THEN d.rate * (s.rooms - h.lone_adult_rooms) ELSE 0 END
                        ELSE d.rate * s.rooms END
                   + CASE WHEN p.extra_adults > 0
                          THEN d.extra_adult_rate * p.extra_adults ELSE 0 END
                   + CASE WHEN h.children > 0 THEN d.extra_child_rate * h.children ELSE 0 END
                   AS amount
         ) n0
         CROSS JOIN LATERAL (
            SELECT n0.amount,
                   round(round(n0.amount, p.minor_units) * p.fx_rate, h.target_minor)
                   AS amount_out
         ) n
         WHERE d.property_id = h.property_id AND d.date BETWEEN s.check_in AND s.check_out
           AND d.room_type_id = ANY(open_room_types.ids)
           AND (d.rate_plan_id << 32) | d.room_type_id = ANY(ps.offers)
         GROUP BY d.room_type_id, d.rate_plan_id
        HAVING count(n.amount) FILTER (WHERE d.closed IS NOT TRUE) = s.nights
           AND count(*) FILTER (WHERE d.date = s.check_in AND (d.closed_to_arrival
                                      OR d.min_stay > s.nights OR d.max_stay < s.nights)) = 0
           AND count(*) FILTER (WHERE d.date = s.check_out AND d.closed_to_departure) = 0
      ) offer
  ) best ON true;
