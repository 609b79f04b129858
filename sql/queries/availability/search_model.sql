-- The search read model (connectivity/availability/read_model/): what it loads of a
-- property, and the changes it follows to keep what it loaded current. Money leaves as integers
-- in millionths (-1: never sent; -2: more than six decimals or a billion and more, which the
-- model does not hold: such a property is searched by search.sql instead).

-- name: model_properties(property_ids)
SELECT p.id AS property_id, p.timezone, p.currency, p.max_child_age
  FROM properties p
 WHERE p.id = ANY(:property_ids::bigint[]);

-- name: model_offers(property_ids)
-- Every (room type, rate plan) a plan sells, with what judging a party needs; the room type's
-- capacity is folded into max_occupancy.
SELECT rprt.property_id, rprt.room_type_id, rprt.rate_plan_id, rp.currency, rp.base_adults,
       rp.max_adults, rp.max_children, least(rp.max_occupancy, rt.max_occupancy) AS max_occupancy,
       rp.allowed_nationalities, rp.blocked_nationalities
  FROM rate_plan_room_types rprt
  JOIN rate_plans rp ON rp.id = rprt.rate_plan_id
  JOIN room_types rt ON rt.id = rprt.room_type_id
 WHERE rprt.property_id = ANY(:property_ids::bigint[])
 ORDER BY rprt.property_id, rprt.room_type_id, rprt.rate_plan_id;

-- name: model_room_types(property_ids)
SELECT property_id, id AS room_type_id FROM room_types
 WHERE property_id = ANY(:property_ids::bigint[])
 ORDER BY property_id, id;

-- name: model_mappings(property_ids)
-- Every partner's mapping of the properties: the code, whether it sells (a paused one does not),
-- and the room types and rate plans it maps.
SELECT pp.id AS mapping_id, pp.property_id, pp.partner_id, pp.environment, pp.hotel_code,
       pp.distribution_active,
       ARRAY(SELECT room_type_id FROM partner_room_types WHERE mapping_id = pp.id) AS room_type_ids,
       ARRAY(SELECT rate_plan_id FROM partner_rate_plans WHERE mapping_id = pp.id) AS rate_plan_ids,
       -- search.sql refuses a currency that any mapped plan cannot be converted from
       ARRAY(SELECT DISTINCT rp.currency FROM partner_rate_plans prp
               JOIN rate_plans rp ON rp.id = prp.rate_plan_id
              WHERE prp.mapping_id = pp.id) AS plan_currencies
  FROM partner_properties pp
 WHERE pp.property_id = ANY(:property_ids::bigint[]);

-- name: model_rate_offers(property_ids)
-- Every mapping's offers as POST /availability/rates lists them (offers.sql `offers`: the same
-- joins, columns and order, the partner's codes sorted by this database's collation), for rates
-- answered from the model; the policy as text, parsed once per distinct text by the loader.
SELECT prt.property_id, prt.mapping_id, prt.room_type_code, rt.id AS room_type_id,
       rt.max_occupancy AS room_type_max_occupancy, prp.rate_plan_code,
       rp.id AS rate_plan_id, rp.board_type, rp.currency, rp.base_adults, rp.max_adults,
       rp.max_children, rp.max_occupancy, rp.allowed_nationalities, rp.blocked_nationalities,
       rp.cancellation_policy::text AS cancellation_policy
  FROM partner_room_types prt
  JOIN room_types rt ON rt.id = prt.room_type_id
  JOIN rate_plan_room_types rprt ON rprt.room_type_id = prt.room_type_id
  JOIN partner_rate_plans prp
    ON prp.mapping_id = prt.mapping_id AND prp.rate_plan_id = rprt.rate_plan_id
  JOIN rate_plans rp ON rp.id = prp.rate_plan_id
 WHERE prt.property_id = ANY(:property_ids::bigint[])
 ORDER BY prt.mapping_id, prt.room_type_code, prp.rate_plan_code;

-- name: model_mapped_properties(partner_id, environment, hotel_codes)
-- The properties behind a caller's codes (to load those the model does not hold yet).
SELECT property_id FROM partner_properties
 WHERE partner_id = :partner_id AND environment = :environment
   AND hotel_code = ANY(:hotel_codes::text[]);

-- name: model_all_properties()
-- Every property, for a model told to load them all (SEARCH_MODEL_PRELOAD).
SELECT id AS property_id FROM properties ORDER BY id;

-- name: model_days(property_ids, starts, first_dates, last_dates, earliest, latest)
-- Each property's days between its two dates, one row per property and day table (`days_of`:
-- plan, room), its rows as one int8 array sent in its binary form (array_send), which numpy
-- reads whole (grid.int8_rows): no dozen Python objects a row, no text to parse, and one
-- statement for every property a load or a catch-up reads. The layout of offers.sql
-- `rate_days`, with every price:
--   plan, 12 a row: room type, rate plan, day (from the property's start), rate, single_rate,
--         extra_adult_rate, extra_child_rate, closed, min_stay, max_stay, CTA, CTD
--   room, 8 a row: room type, day, available (0 when never sent), closed, min_stay, max_stay,
--         CTA, CTD
-- Exactness asks a value's stored scale first, and trim_scale (a new numeric per value: it was
-- half of a load's time in PostgreSQL) only of one stored with more than six decimals.
-- On Citus each half is one task per shard holding a property asked for (the ANY prunes the
-- others), grouped there by the distribution column: with the windows as a CTE both halves
-- read every shard and the coordinator grouped the rows (a catch-up's 12 hotels: 100 ms
-- against 28; plain PostgreSQL the same, docs/benchmarks.md "Search at look-to-book scale").
-- `earliest` and `latest` bound every window: the windows' own bounds come from a joined
-- array, and a Citus worker, planning its shard with the constants in hand, joined them by hash
-- to every row of the properties (a catch-up of 30 hotels, a day each: 33,000 rows read on a
-- shard for 90 kept); bound as constants, the index reads the span they cover alone (on the
-- bench cluster 167 against 58 ms of PostgreSQL CPU, days within a month; 144 against 80
-- within five).
SELECT 'plan' AS days_of, d.property_id, array_send(array_agg(ARRAY[
           d.room_type_id, d.rate_plan_id, d.date - w.start,
           CASE WHEN d.rate IS NULL THEN -1 WHEN d.rate < 1e9
                     AND (scale(d.rate) <= 6 OR scale(trim_scale(d.rate)) <= 6)
                THEN (d.rate * 1000000)::bigint ELSE -2 END,
           CASE WHEN d.single_rate IS NULL THEN -1
                WHEN d.single_rate < 1e9
                     AND (scale(d.single_rate) <= 6
                          OR scale(trim_scale(d.single_rate)) <= 6)
                THEN (d.single_rate * 1000000)::bigint ELSE -2 END,
           CASE WHEN d.extra_adult_rate IS NULL THEN -1
                WHEN d.extra_adult_rate < 1e9
                     AND (scale(d.extra_adult_rate) <= 6
                          OR scale(trim_scale(d.extra_adult_rate)) <= 6)
                THEN (d.extra_adult_rate * 1000000)::bigint ELSE -2 END,
           CASE WHEN d.extra_child_rate IS NULL THEN -1
                WHEN d.extra_child_rate < 1e9
                     AND (scale(d.extra_child_rate) <= 6
                          OR scale(trim_scale(d.extra_child_rate)) <= 6)
                THEN (d.extra_child_rate * 1000000)::bigint ELSE -2 END,
           coalesce(d.closed, false)::int, coalesce(d.min_stay, 0), coalesce(d.max_stay, 0),
           coalesce(d.closed_to_arrival, false)::int,
           coalesce(d.closed_to_departure, false)::int]::bigint[])) AS days
  FROM rate_plan_days d
  JOIN unnest(:property_ids::bigint[], :starts::date[], :first_dates::date[],
                        :last_dates::date[]) AS w(property_id, start, first_date, last_date)
    ON d.property_id = w.property_id AND d.date BETWEEN w.first_date AND w.last_date
 WHERE d.property_id = ANY(:property_ids::bigint[])
   AND d.date BETWEEN :earliest::date AND :latest::date
 GROUP BY d.property_id
UNION ALL
SELECT 'room', d.property_id, array_send(array_agg(ARRAY[
           d.room_type_id, d.date - w.start, coalesce(d.available, 0),
           coalesce(d.closed, false)::int, coalesce(d.min_stay, 0), coalesce(d.max_stay, 0),
           coalesce(d.closed_to_arrival, false)::int,
           coalesce(d.closed_to_departure, false)::int]::bigint[]))
  FROM room_type_days d
  JOIN unnest(:property_ids::bigint[], :starts::date[], :first_dates::date[],
                        :last_dates::date[]) AS w(property_id, start, first_date, last_date)
    ON d.property_id = w.property_id AND d.date BETWEEN w.first_date AND w.last_date
 WHERE d.property_id = ANY(:property_ids::bigint[])
   AND d.date BETWEEN :earliest::date AND :latest::date
 GROUP BY d.property_id;

-- name: model_changes(origins, after_xids, after_ids, before_xids, low_xid, high_xid, page_size, property_ids, every_property)
-- The changes after each origin's position and below its next transaction id as read with the
-- horizons (a transaction begun later is read by the next catch-up), in (xid, id) order, every
-- partner: also those at or above the horizon that have committed (the model re-reads what it
-- may have missed until the horizon passes it; change_feed.sql feed_page serves only what is
-- below it). Each origin's rows are looked up in that origin's own range of the (xid, id)
-- index: xids of different nodes are not comparable, and one range from the lowest position of
-- every origin read, on each shard, every row its node wrote since (on Citus the coordinator's
-- xids stay behind the workers', which write the rows: the scan grew with the log). low_xid
-- and high_xid (the lowest position, the highest next xid) bound the index scan whatever plan
-- is chosen: ordering by (xid, id) for the LIMIT, plain PostgreSQL scanned the whole index
-- (1 M rows, 750 ms) and matched each row to its origin. Of `property_ids` alone unless
-- `every_property`: a light catch-up's, when the read fence names every property changed since
-- its last token (store/read_fence.py `read_since`); bound as a constant, `OR false` leaves
-- the ANY, and on Citus only those properties' shards are read (EXPLAIN: 1 task, against 32).
SELECT c.id, c.origin, c.xid::text AS xid, c.property_id, c.room_type_id, c.rate_plan_id,
       c.from_date, c.to_date, c.kinds
  FROM change_log c
  JOIN unnest(:origins::integer[], :after_xids::text[], :after_ids::bigint[],
              :before_xids::text[]) AS a(origin, xid, id, before_xid)
    ON c.origin = a.origin
   -- no next xid: an origin no node answers for any more (read to its end)
   AND c.xid >= a.xid::xid8 AND c.xid < coalesce(a.before_xid, '18446744073709551615')::xid8
   AND (c.xid, c.id) > (a.xid::xid8, a.id)
 WHERE c.xid >= :low_xid::text::xid8 AND c.xid < :high_xid::text::xid8
   AND (c.property_id = ANY(:property_ids::bigint[]) OR :every_property::boolean)
 ORDER BY c.xid, c.id
 LIMIT :page_size;

-- name: model_catch_up_settings()
-- For a catch-up in a pooled transaction, that transaction only (the model's own connection
-- has it for its session, read_model/building.py): on Citus each statement that reads every
-- shard (the changes) runs its shard tasks one after another over one cached connection per
-- worker, instead of opening more connections (slow start) that close again at the
-- transaction's end.
-- Plain PostgreSQL keeps the setting as an unused placeholder until the transaction ends.
SELECT set_config('citus.max_adaptive_executor_pool_size', '1', true);
