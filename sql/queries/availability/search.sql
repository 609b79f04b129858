-- name: search_hotels(partner_id, environment, hotel_codes, check_in, check_out, rooms, occupancy, nationality, currency, minor_units, now)
-- POST /availability/search in one statement for up to 200 hotels: for each of the caller's
-- mapped, active hotels among :hotel_codes, whether some (room type, rate plan) is sellable for
-- the stay and the cheapest whole-stay total. These are the rules of connectivity.pricing
-- (contract section 8) restated over sets, so that 200 hotels x 30 offers x N nights never
-- travel to Python; tests/discovery/test_search_matches_rates.py holds the two to one answer.
-- The CTEs are MATERIALIZED to keep the planner from flattening them into one join of a dozen
-- relations: that plan search alone took 20 ms, the execution under 1 ms.
--   :occupancy    [{"entry", "qty", "adults", "ages": [int|null, ...]}], one per distinct room
--   :minor_units  {"EUR": 2, "JPY": 0, ...} for every ISO 4217 code (babel's CLDR data)
--   :currency     the requested currency, or NULL for each hotel's own
WITH stay AS (
    SELECT :check_in::date AS check_in, :check_out::date AS check_out,
           :check_out::date - :check_in::date AS nights, :rooms::int AS rooms
),
hotel AS MATERIALIZED (
    SELECT pp.hotel_code, pp.id AS mapping_id, pr.id AS property_id, pr.max_child_age,
           pr.timezone, coalesce(:currency::text, pr.currency) AS target,
           (:now::timestamptz AT TIME ZONE pr.timezone)::date > :check_in::date AS check_in_past
      FROM partner_properties pp
      JOIN properties pr ON pr.id = pp.property_id
     WHERE pp.partner_id = :partner_id AND pp.environment = :environment
       AND pp.distribution_active AND pp.hotel_code = ANY(:hotel_codes::text[])
),
-- Each distinct requested room as this property prices it: a child older than the property's
-- max_child_age counts and pays as an adult; a child of unknown age is a child.
room AS MATERIALIZED (
    SELECT h.property_id, o.qty,
           o.adults + count(*) FILTER (WHERE a.age > h.max_child_age) AS adults,
           count(a.ord) FILTER (WHERE a.age IS NULL OR a.age <= h.max_child_age) AS children
      FROM hotel h
     CROSS JOIN jsonb_to_recordset(:occupancy::jsonb) AS o(entry int, qty int, adults int, ages int[])
      LEFT JOIN LATERAL unnest(o.ages) WITH ORDINALITY AS a(age, ord) ON true
     GROUP BY h.property_id, o.entry, o.qty, o.adults
),
party AS MATERIALIZED (
    SELECT property_id, min(adults) AS fewest_adults, max(adults) AS most_adults,
           max(children) AS most_children, max(adults + children) AS most_guests,
           -- rooms priced at single_rate where a night has one
           coalesce(sum(qty) FILTER (WHERE adults = 1), 0) AS lone_adult_rooms,
           sum(qty * children) AS children
      FROM room
     GROUP BY property_id
),
-- Every mapped rate plan, with the multiplier into the target currency (NULL: no FX rate) and
-- whether its occupancy and nationality rules admit this party.
plan AS MATERIALIZED (
    SELECT h.property_id, h.hotel_code, h.mapping_id, rp.id AS rate_plan_id,
           (:minor_units::jsonb ->> rp.currency)::int AS plan_minor,
           (:minor_units::jsonb ->> h.target)::int AS target_minor,
           CASE WHEN rp.currency = h.target THEN 1
                WHEN fx.rate IS NOT NULL THEN fx.rate
                -- the inverse as connectivity.pricing.money.FxTable computes it
                ELSE round(1::numeric(40, 30) / inv.rate, 16) END AS fx_rate,
           (SELECT sum(r.qty * greatest(r.adults - rp.base_adults, 0))
              FROM room r WHERE r.property_id = h.property_id) AS extra_adults,
           p.most_guests, p.lone_adult_rooms, p.children,
           p.fewest_adults >= 1 AND p.most_adults <= rp.max_adults
               AND p.most_children <= rp.max_children AND p.most_guests <= rp.max_occupancy
               AND (cardinality(rp.allowed_nationalities) + cardinality(rp.blocked_nationalities) = 0
                    OR (:nationality::text IS NOT NULL
                        AND (cardinality(rp.allowed_nationalities) = 0
                             OR :nationality::text = ANY(rp.allowed_nationalities))
                        AND NOT :nationality::text = ANY(rp.blocked_nationalities))) AS admits
      FROM hotel h
      JOIN party p ON p.property_id = h.property_id
      JOIN partner_rate_plans prp ON prp.mapping_id = h.mapping_id
      JOIN rate_plans rp ON rp.id = prp.rate_plan_id
      LEFT JOIN fx_rates fx ON fx.base = rp.currency AND fx.quote = h.target
      LEFT JOIN fx_rates inv ON inv.base = h.target AND inv.quote = rp.currency
),
-- (room type, rate plan) pairs the partner maps and the plan sells, that fit the party.
offer AS MATERIALIZED (
    SELECT pl.*, prt.room_type_id
      FROM plan pl
      JOIN rate_plan_room_types rprt ON rprt.rate_plan_id = pl.rate_plan_id
      JOIN partner_room_types prt
        ON prt.mapping_id = pl.mapping_id AND prt.room_type_id = rprt.room_type_id
      JOIN room_types rt ON rt.id = prt.room_type_id
     WHERE pl.admits AND pl.fx_rate IS NOT NULL AND pl.most_guests <= rt.max_occupancy
),
-- Room types with the rooms for every night and no room-type-level restriction in the way.
room_type_open AS MATERIALIZED (
    SELECT d.property_id, d.room_type_id
      FROM hotel h
     CROSS JOIN stay s
      JOIN room_type_days d
        ON d.property_id = h.property_id AND d.date BETWEEN s.check_in AND s.check_out
     GROUP BY d.property_id, d.room_type_id, s.check_in, s.check_out, s.nights, s.rooms
    HAVING count(*) FILTER (WHERE d.date < s.check_out AND d.available >= s.rooms
                                  AND d.closed IS NOT TRUE) = s.nights
       AND count(*) FILTER (WHERE d.date = s.check_in AND (d.closed_to_arrival
                                  OR d.min_stay > s.nights OR d.max_stay < s.nights)) = 0
       AND count(*) FILTER (WHERE d.date = s.check_out AND d.closed_to_departure) = 0
),
-- Sellable offers and their totals: each night's amount for all rooms, rounded in the plan's
-- currency, converted, rounded again; the total is the sum of those nights.
priced AS (
    SELECT o.hotel_code,
           sum(round(round(n.amount, o.plan_minor) * o.fx_rate, o.target_minor)) AS total
      FROM hotel h
     CROSS JOIN stay s
      JOIN rate_plan_days d
        ON d.property_id = h.property_id AND d.date BETWEEN s.check_in AND s.check_out
      JOIN offer o
        ON o.property_id = d.property_id AND o.room_type_id = d.room_type_id
       AND o.rate_plan_id = d.rate_plan_id
      JOIN room_type_open rto
        ON rto.property_id = d.property_id AND rto.room_type_id = d.room_type_id
     CROSS JOIN LATERAL (
        SELECT CASE WHEN d.date = s.check_out THEN NULL
                    WHEN d.single_rate IS NOT NULL AND o.lone_adult_rooms > 0
                    THEN d.single_rate * o.lone_adult_rooms
                         + CASE WHEN s.rooms > o.lone_adult_rooms
                                THEN d.rate * (s.rooms - o.lone_adult_rooms) ELSE 0 END
                    ELSE d.rate * s.rooms END
               + CASE WHEN o.extra_adults > 0 THEN d.extra_adult_rate * o.extra_adults ELSE 0 END
               + CASE WHEN o.children > 0 THEN d.extra_child_rate * o.children ELSE 0 END
               AS amount
     ) n
     GROUP BY o.hotel_code, o.room_type_id, o.rate_plan_id, s.check_in, s.check_out, s.nights
    HAVING count(n.amount) FILTER (WHERE d.closed IS NOT TRUE) = s.nights
       AND count(*) FILTER (WHERE d.date = s.check_in AND (d.closed_to_arrival
                                  OR d.min_stay > s.nights OR d.max_stay < s.nights)) = 0
       AND count(*) FILTER (WHERE d.date = s.check_out AND d.closed_to_departure) = 0
),
lowest AS (
    SELECT hotel_code, min(total) AS total FROM priced GROUP BY hotel_code
),
unconvertible AS (
    SELECT DISTINCT property_id FROM plan WHERE fx_rate IS NULL
)
SELECT h.hotel_code, h.target AS currency, h.timezone, h.check_in_past,
       u.property_id IS NOT NULL AS currency_unsupported, l.total AS lowest_total_amount
  FROM hotel h
  LEFT JOIN lowest l ON l.hotel_code = h.hotel_code
  LEFT JOIN unconvertible u ON u.property_id = h.property_id;
