-- name: search_hotels(partner_id, environment, hotel_codes, check_in, check_out, rooms, occupancy, nationality, currency, minor_units, now)
-- POST /availability/search in one statement for up to 200 hotels: for each of the caller's
-- mapped, active hotels among :hotel_codes, whether some (room type, rate plan) is sellable for
-- the stay and the cheapest whole-stay total. These are the rules of connectivity.pricing
-- (contract section 8) restated over sets, so that 200 hotels x 30 offers x N nights never
-- travel to Python; tests/availability/test_search_matches_rates.py holds the two to one answer.
--   :occupancy    jsonb [{"entry", "qty", "adults", "ages": [int|null, ...]}], each distinct room
--   :minor_units  jsonb {"EUR": 2, "JPY": 0, ...} for every ISO 4217 code (babel's CLDR data)
--   :currency     the requested currency, or NULL for each hotel's own
--
-- Shape, and why: everything about a hotel that does not depend on the date (its party, the
-- room types and plans that may be sold, each plan's price factors) is first folded into one
-- row per hotel, with arrays. The day tables are then read by one index range per hotel, in
-- LATERAL subqueries that join nothing but those arrays. No plan the optimizer can pick turns
-- this into nested loops over thousands of rows, as a join of CTEs of misestimated size can.
--
-- Cost, and why the last subquery looks as it does: the ~42,000 rate_plan_days rows of a
-- 200-hotel, 7-night search are what the statement spends its time on, so each row does as
-- little as it can. It is read once (one index range per hotel, the stay's nights only: the
-- check-out day counts only when closed to departure, read from partial indexes); it is not
-- tested against arrays (the ~30 groups per hotel are, for being offers and open); it is not
-- sorted (the groups hash); its amount is one expression (NaN marks a closed or unpriced night
-- inside the same sum), and for the usual party and hotel that expression is the rate plus the
-- plan's extra adults (the figures: docs/benchmarks-history.md, "The search statement").
WITH
-- The hotels, each with the requested rooms as it prices them: a child older than the
-- property's max_child_age counts and pays as an adult; a child of unknown age is a child.
hotel AS MATERIALIZED (
    SELECT pp.hotel_code, pp.id AS mapping_id, pr.id AS property_id, pr.timezone,
           coalesce(:currency::text, pr.currency) AS target,
           (:minor_units::jsonb ->> coalesce(:currency::text, pr.currency))::int AS target_minor,
           (:now::timestamptz AT TIME ZONE pr.timezone)::date > :check_in::date AS check_in_past,
           party.*, fit.fitting_room_types
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
               coalesce(sum(qty) FILTER (WHERE adults = 1), 0)::int AS lone_adult_rooms,
               -- one room, no lone adult, no child: a night costs its rate (and extra adults)
               sum(qty) = 1 AND coalesce(sum(qty) FILTER (WHERE adults = 1), 0) = 0
                   AND sum(qty * children) = 0 AS plain_party,
               sum(qty * children)::int AS children,
               -- [b]: the adults above a plan's base_adults b, summed over the rooms
               ARRAY(SELECT (SELECT sum(r.qty * greatest(r.adults - b, 0)) FROM room r)
                       FROM generate_series(1, 20) AS b ORDER BY b) AS extra_adults_by_base
          FROM room
     ) party
     -- The room types the partner maps that can hold the party's largest room.
     CROSS JOIN LATERAL (
        SELECT ARRAY(SELECT rt.id FROM room_types rt
                       JOIN partner_room_types prt ON prt.mapping_id = pp.id AND prt.room_type_id = rt.id
                      WHERE rt.property_id = pr.id AND rt.max_occupancy >= party.most_guests)
               AS fitting_room_types
     ) fit
     -- The caller's hotels by code as mapping/find_hotel.sql finds one, active ones only (a
     -- paused hotel is not sold), for all the codes at once inside this one statement.
     WHERE pp.partner_id = :partner_id AND pp.environment = :environment
       AND pp.distribution_active AND pp.hotel_code = ANY(:hotel_codes::text[])
),
-- Each mapped rate plan of each hotel: its multiplier into the target currency (NULL when no
-- FX rate exists), its minor units, the extra adults it charges, and whether its rules admit
-- the party.
plan AS MATERIALIZED (
    SELECT h.property_id, h.fitting_room_types, h.target_minor, rp.id AS rate_plan_id,
           CASE WHEN rp.currency = h.target THEN 1
                WHEN fx.rate IS NOT NULL THEN fx.rate
                -- the inverse as connectivity.pricing.money.FxTable computes it
                ELSE round(1::numeric(40, 30) / inv.rate, 16) END AS fx_rate,
           (:minor_units::jsonb ->> rp.currency)::int AS minor_units,
           h.extra_adults_by_base[rp.base_adults]::int AS extra_adults,
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
-- One row per hotel: the sellable plans' factors as parallel arrays (looked up per night by
-- rate_plan_id), and the offers as keys (rate_plan_id << 32 | room_type_id): room types the
-- partner maps, the plan sells, and big enough for the party's largest room.
--
-- `one_money`: every sellable plan has the same currency factors (fx_rate, minor_units) and
-- those plans that charge extra adults charge the same number. That is the usual hotel (one
-- currency; plans with base_adults 1 and 2), and its nights are priced from these scalars
-- instead of looking each night's plan up in the arrays.
plans AS MATERIALIZED (
    SELECT pl.*,
           ARRAY(SELECT (rprt.rate_plan_id << 32) | rprt.room_type_id
                   FROM rate_plan_room_types rprt
                  WHERE rprt.rate_plan_id = ANY(pl.ids)
                    AND rprt.room_type_id = ANY(pl.fitting_room_types)
           ) AS offers
      FROM (SELECT property_id, fitting_room_types,
                   bool_or(fx_rate IS NULL) AS unconvertible,
                   array_agg(rate_plan_id) FILTER (WHERE sellable) AS ids,
                   array_agg(fx_rate) FILTER (WHERE sellable) AS fx_rates,
                   array_agg(minor_units) FILTER (WHERE sellable) AS minor_units,
                   array_agg(extra_adults) FILTER (WHERE sellable) AS extra_adults,
                   -- (min = max rather than count(DISTINCT ...), which sorts every group)
                   coalesce(min(fx_rate) FILTER (WHERE sellable)
                                = max(fx_rate) FILTER (WHERE sellable)
                            AND min(minor_units) FILTER (WHERE sellable)
                                = max(minor_units) FILTER (WHERE sellable), true)
                       AND coalesce(min(extra_adults) FILTER (WHERE sellable AND extra_adults > 0)
                                    = max(extra_adults) FILTER (WHERE sellable AND extra_adults > 0),
                                    true) AS one_money,
                   min(fx_rate) FILTER (WHERE sellable) AS one_fx_rate,
                   min(minor_units) FILTER (WHERE sellable) AS one_minor_units,
                   coalesce(bool_and(fx_rate = 1 AND minor_units = target_minor)
                                FILTER (WHERE sellable), true) AS unconverted,
                   coalesce(array_agg(rate_plan_id) FILTER (WHERE sellable AND extra_adults > 0),
                            '{}') AS charging_ids,
                   max(extra_adults) FILTER (WHERE sellable) AS charged_adults
              FROM (SELECT *, admits AND fx_rate IS NOT NULL AS sellable FROM plan) p
             GROUP BY property_id, fitting_room_types) pl
),
-- The day tables are read per hotel, in LATERAL subqueries grouped by property_id: under Citus
-- (the day tables sharded by property, the hotels' CTEs sent to the shards like reference
-- tables) each is pushed down whole to the shard of its hotel; Citus pushes down a lateral
-- subquery that groups by the distribution column, but no outer lateral join, hence inner
-- joins here and the LEFT JOINs of the final SELECT.
--
-- Room types with the rooms for every night and no room-type-level restriction in the way.
open_room_types AS MATERIALIZED (
    SELECT o.*
      FROM hotel h
     CROSS JOIN LATERAL (
        SELECT g.property_id, array_agg(g.room_type_id) AS ids
          FROM (SELECT d.property_id, d.room_type_id
                  FROM room_type_days d
                 WHERE d.property_id = h.property_id
                   AND d.date >= :check_in::date AND d.date < :check_out::date
                 GROUP BY d.property_id, d.room_type_id
                HAVING count(*) FILTER (WHERE d.available >= :rooms::int AND d.closed IS NOT TRUE)
                           = :check_out::date - :check_in::date
                   AND count(*) FILTER (WHERE d.date = :check_in::date
                                          AND (d.closed_to_arrival
                                               OR d.min_stay > :check_out::date - :check_in::date
                                               OR d.max_stay < :check_out::date - :check_in::date))
                       = 0) g
         GROUP BY g.property_id
     ) o
),
-- Closed to departure on the check-out day, per room type and per offer: read from partial
-- indexes of the few such rows, so the day after the stay is not read for each room type and
-- plan.
departure_closed AS MATERIALIZED (
    SELECT d.property_id, array_agg(d.room_type_id) AS room_type_ids
      FROM room_type_days d JOIN hotel h ON h.property_id = d.property_id
     WHERE d.date = :check_out::date AND d.closed_to_departure
     GROUP BY d.property_id
),
departure_closed_offers AS MATERIALIZED (
    SELECT d.property_id, array_agg((d.rate_plan_id << 32) | d.room_type_id) AS offers
      FROM rate_plan_days d JOIN hotel h ON h.property_id = d.property_id
     WHERE d.date = :check_out::date AND d.closed_to_departure
     GROUP BY d.property_id
),
-- The cheapest offer open every night at rate-plan level too. Each night's amount for all
-- rooms is rounded in the plan's currency, converted, rounded again; the total is their sum.
-- A closed night, or one without a price this party needs, is NaN, which a numeric sum keeps:
-- one aggregate says both "sellable every night" and "from what total".
--
-- The hotel's rows for the stay are one index range, aggregated per (room type, rate plan)
-- as they come; which of those groups are offers, and open, is checked on the ~30 groups
-- afterwards (OFFSET 0 keeps the planner from pushing those checks down onto every row).
best AS MATERIALIZED (
    SELECT b.*
      FROM hotel h
      JOIN plans ps ON ps.property_id = h.property_id
      JOIN open_room_types open_room_types ON open_room_types.property_id = h.property_id
      LEFT JOIN departure_closed dc ON dc.property_id = h.property_id
      LEFT JOIN departure_closed_offers dco ON dco.property_id = h.property_id
     CROSS JOIN LATERAL (
    SELECT offer.property_id, min(offer.total) AS total
      FROM (
        SELECT d.property_id, d.room_type_id, d.rate_plan_id,
               count(*) AS nights,
               sum(CASE
                     WHEN d.closed THEN 'NaN'::numeric
                     -- one room, no lone adult, no child, no conversion: the rate, and the
                     -- extra adults where the plan charges them
                     WHEN ps.one_money AND ps.unconverted AND h.plain_party
                     THEN coalesce(round(CASE WHEN d.rate_plan_id = ANY(ps.charging_ids)
                                              THEN d.rate + d.extra_adult_rate * ps.charged_adults
                                              ELSE d.rate END, h.target_minor), 'NaN')
                     -- any other party: the general formula, with the plan's factors taken
                     -- from the hotel's scalars when its plans share them (one_money), else
                     -- looked up by the night's rate plan
                     ELSE coalesce(round(round(
                              CASE WHEN h.lone_adult_rooms = 0 OR d.single_rate IS NULL
                                   THEN d.rate * :rooms::int
                                   ELSE d.single_rate * h.lone_adult_rooms
                                        + CASE WHEN :rooms::int > h.lone_adult_rooms
                                               THEN d.rate * (:rooms::int - h.lone_adult_rooms)
                                               ELSE 0 END END
                              + CASE WHEN ps.one_money
                                     THEN CASE WHEN d.rate_plan_id = ANY(ps.charging_ids)
                                               THEN d.extra_adult_rate * ps.charged_adults
                                               ELSE 0 END
                                     WHEN ps.extra_adults[array_position(ps.ids, d.rate_plan_id)] > 0
                                     THEN d.extra_adult_rate
                                          * ps.extra_adults[array_position(ps.ids, d.rate_plan_id)]
                                     ELSE 0 END
                              + CASE WHEN h.children > 0
                                     THEN d.extra_child_rate * h.children ELSE 0 END,
                              CASE WHEN ps.one_money THEN ps.one_minor_units
                                   ELSE ps.minor_units[array_position(ps.ids, d.rate_plan_id)] END)
                              * CASE WHEN ps.one_money THEN ps.one_fx_rate
                                     ELSE ps.fx_rates[array_position(ps.ids, d.rate_plan_id)] END,
                              h.target_minor), 'NaN')
                   END) AS total
          FROM rate_plan_days d
         WHERE d.property_id = h.property_id
           AND d.date >= :check_in::date AND d.date < :check_out::date
         GROUP BY d.property_id, d.room_type_id, d.rate_plan_id
        HAVING count(*) FILTER (WHERE d.date = :check_in::date
                                  AND (d.closed_to_arrival
                                       OR d.min_stay > :check_out::date - :check_in::date
                                       OR d.max_stay < :check_out::date - :check_in::date)) = 0
        OFFSET 0
      ) offer
     WHERE offer.nights = :check_out::date - :check_in::date AND offer.total <> 'NaN'
       AND offer.room_type_id = ANY(open_room_types.ids)
       AND NOT offer.room_type_id = ANY(coalesce(dc.room_type_ids, '{}'))
       AND (offer.rate_plan_id << 32) | offer.room_type_id = ANY(ps.offers)
       AND NOT (offer.rate_plan_id << 32) | offer.room_type_id
               = ANY(coalesce(dco.offers, '{}'))
     GROUP BY offer.property_id
     ) b
)
SELECT h.hotel_code, h.target AS currency, h.timezone, h.check_in_past,
       coalesce(ps.unconvertible, false) AS currency_unsupported,
       best.total AS lowest_total_amount
  FROM hotel h
  LEFT JOIN plans ps ON ps.property_id = h.property_id
  LEFT JOIN best ON best.property_id = h.property_id;
