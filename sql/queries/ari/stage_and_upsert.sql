-- Applying a group of batches, in the worker, in one transaction: lock and claim them
-- (claim_group.sql), stage the judged items (ari_staged_values, migration 0015), read the
-- rejections, one upsert per day table, and empty the staging. Set-based throughout: a
-- 5,000-item batch, or 200 one-item batches, is the same handful of statements.

-- name: judging_rules(batch_ids, property_ids)$
-- What the rejection rules look up for the items of a group, as one JSON value that
-- stage_batch_items reads back: each hotel's today (in its timezone), and of the codes the items
-- name, the partner's room types and rate plans (with their currencies) and which of those room
-- types those rate plans sell. Only the codes named: a group of 200 one-item batches would
-- otherwise carry its 200 mappings whole (470 kB of JSON, 33 ms to build and read back, on the
-- bench data set).
-- Read apart from the staging because these are reference tables: Citus cannot restrict an
-- INSERT ... SELECT that joins one to the shards the rows go to (every shard of the staging
-- table would be written, on both workers, and the apply would need two-phase commit), while
-- values from a parameter leave it the batches' own shards.
WITH named AS (
    SELECT DISTINCT b.mapping_id, e.v->>'room_type_code' AS room_type_code,
           e.v->>'rate_plan_code' AS rate_plan_code
      FROM ari_batches b
     CROSS JOIN LATERAL jsonb_array_elements(b.items) AS e(v)
     WHERE b.property_id = ANY(:property_ids) AND b.id = ANY(:batch_ids)
),
room_types AS (
    SELECT prt.mapping_id, prt.room_type_code, prt.room_type_id
      FROM partner_room_types prt
     WHERE (prt.mapping_id, prt.room_type_code) IN (SELECT mapping_id, room_type_code FROM named)
),
rate_plans AS (
    SELECT prp.mapping_id, prp.rate_plan_code, prp.rate_plan_id, rp.currency
      FROM partner_rate_plans prp
      JOIN rate_plans rp ON rp.id = prp.rate_plan_id
     WHERE (prp.mapping_id, prp.rate_plan_code) IN (SELECT mapping_id, rate_plan_code FROM named)
)
SELECT jsonb_build_object(
    'hotels', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                   'property_id', p.id,
                   'today', (now() AT TIME ZONE p.timezone)::date)), '[]')
                 FROM properties p WHERE p.id = ANY(:property_ids)),
    'room_types', (SELECT coalesce(jsonb_agg(to_jsonb(t)), '[]') FROM room_types t),
    'rate_plans', (SELECT coalesce(jsonb_agg(to_jsonb(t)), '[]') FROM rate_plans t),
    'sold', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                 'rate_plan_id', s.rate_plan_id, 'room_type_id', s.room_type_id)), '[]')
               FROM rate_plan_room_types s
              WHERE s.rate_plan_id IN (SELECT rate_plan_id FROM rate_plans)
                AND s.room_type_id IN (SELECT room_type_id FROM room_types))
)::text;

-- name: stage_batch_items(stage, batch_ids, property_ids, rules)!
-- Judges every item of the batches (a group: one statement whatever its size) against the
-- partner's mapping (contract section 8; `rules` from judging_rules) and stages it in
-- ari_staged_values under `stage`: the values of an item that can apply, one row per date, or
-- the item itself with its rejection code.
-- An ARI item's date is a one-day range; a range is clipped to start yesterday (in the hotel's
-- timezone), and refused whole when it ends before that or more than 2 years ahead.
-- It reads the batches' own rows and the rules parameter, nothing else, so Citus pushes the
-- whole INSERT ... SELECT down to the shards of the batches' hotels (the rows never pass
-- through the coordinator); a reference table joined in here would send it to every shard
-- (EXPLAIN on a 4-shard cluster: Task Count 4, against 1).
INSERT INTO ari_staged_values (
    stage, property_id, batch_id, seq, date, room_type_id, rate_plan_id, available, rate,
    single_rate, extra_adult_rate, extra_child_rate, closed, min_stay, max_stay,
    closed_to_arrival, closed_to_departure, rejection, room_type_code, rate_plan_code,
    currency, plan_currency, from_date, to_date)
SELECT :stage, j.property_id, j.batch_id, j.seq,
       CASE WHEN j.rejection IS NULL THEN d::date END,
       j.room_type_id, j.rate_plan_id, j.available, j.rate, j.single_rate, j.extra_adult_rate,
       j.extra_child_rate, j.closed, j.min_stay, j.max_stay, j.closed_to_arrival,
       j.closed_to_departure, j.rejection, j.room_type_code, j.rate_plan_code, j.currency,
       j.plan_currency, j.from_date, j.to_date
  FROM (
    SELECT i.*, prt.room_type_id, prp.rate_plan_id, prp.currency AS plan_currency,
           CASE
             -- X-Sandbox-Scenario: partially_applied (contract 11.4)
             WHEN i.index = 0 AND i.sandbox_scenario = 'partially_applied'
               THEN 'sandbox_scenario'
             WHEN prt.room_type_id IS NULL THEN 'unknown_room_type'
             WHEN i.rate_plan_code IS NOT NULL AND prp.rate_plan_id IS NULL
               THEN 'unknown_rate_plan'
             WHEN prp.rate_plan_id IS NOT NULL AND sold.rate_plan_id IS NULL
               THEN 'rate_plan_not_for_room_type'
             WHEN i.rate_plan_code IS NULL
                  AND num_nonnulls(i.rate, i.single_rate, i.extra_adult_rate,
                                   i.extra_child_rate) > 0
               THEN 'price_without_rate_plan'
             WHEN i.currency <> prp.currency THEN 'currency_mismatch'
             WHEN i.min_stay > i.max_stay THEN 'min_stay_above_max_stay'
             WHEN i.to_date < i.today - 1 THEN 'date_in_past'
             WHEN i.to_date > (i.today + interval '2 years')::date THEN 'date_too_far'
           END AS rejection
      FROM (
        SELECT b.id AS batch_id, ari_item_order(b.seq, e.ord - 1) AS seq,
               (e.ord - 1)::integer AS index, b.property_id, b.mapping_id, b.sandbox_scenario,
               h.today,
               e.v->>'room_type_code' AS room_type_code,
               e.v->>'rate_plan_code' AS rate_plan_code,
               coalesce(e.v->>'date', e.v->>'from_date')::date AS from_date,
               coalesce(e.v->>'date', e.v->>'to_date')::date AS to_date,
               e.v->'days_of_week' AS days_of_week,
               (e.v->>'availability')::integer AS available,
               e.v->>'currency' AS currency,
               (e.v->>'rate')::numeric AS rate,
               (e.v->>'single_rate')::numeric AS single_rate,
               (e.v->>'extra_adult_rate')::numeric AS extra_adult_rate,
               (e.v->>'extra_child_rate')::numeric AS extra_child_rate,
               (e.v->>'closed')::boolean AS closed,
               (e.v->>'min_stay')::smallint AS min_stay,
               (e.v->>'max_stay')::smallint AS max_stay,
               (e.v->>'closed_to_arrival')::boolean AS closed_to_arrival,
               (e.v->>'closed_to_departure')::boolean AS closed_to_departure
          FROM ari_batches b
          JOIN jsonb_to_recordset(:rules::jsonb -> 'hotels') AS h(property_id bigint, today date)
            ON h.property_id = b.property_id
          CROSS JOIN LATERAL jsonb_array_elements(b.items) WITH ORDINALITY AS e(v, ord)
         WHERE b.property_id = ANY(:property_ids) AND b.id = ANY(:batch_ids)
      ) i
      LEFT JOIN jsonb_to_recordset(:rules::jsonb -> 'room_types')
             AS prt(mapping_id bigint, room_type_code text, room_type_id bigint)
             ON prt.mapping_id = i.mapping_id AND prt.room_type_code = i.room_type_code
      LEFT JOIN jsonb_to_recordset(:rules::jsonb -> 'rate_plans')
             AS prp(mapping_id bigint, rate_plan_code text, rate_plan_id bigint, currency text)
             ON prp.mapping_id = i.mapping_id AND prp.rate_plan_code = i.rate_plan_code
      LEFT JOIN jsonb_to_recordset(:rules::jsonb -> 'sold')
             AS sold(rate_plan_id bigint, room_type_id bigint)
             ON sold.rate_plan_id = prp.rate_plan_id AND sold.room_type_id = prt.room_type_id
  ) j
  -- The dates of an item that applies; a rejected item is one row, dated by its from_date.
  CROSS JOIN LATERAL generate_series(
       CASE WHEN j.rejection IS NULL THEN greatest(j.from_date, j.today - 1) ELSE j.from_date END,
       CASE WHEN j.rejection IS NULL THEN j.to_date ELSE j.from_date END,
       interval '1 day') AS d
 WHERE j.rejection IS NOT NULL
    OR j.days_of_week IS NULL
    -- days_of_week holds weekdays from 0 (Monday): a JSON array contains a number
    OR j.days_of_week @> to_jsonb(extract(isodow FROM d)::integer - 1);

-- name: staged_rejections(stage, property_ids)
-- The rejected items of a staging, with their batch, in acceptance order.
SELECT batch_id, ari_order_item_index(seq) AS index, rejection AS code, room_type_code,
       rate_plan_code, currency, plan_currency, from_date, to_date
  FROM ari_staged_values
 WHERE property_id = ANY(:property_ids) AND stage = :stage AND rejection IS NOT NULL
 ORDER BY seq;

-- name: unstage(stage, property_ids)!
-- A staging's rows, once written: the table is empty between transactions.
DELETE FROM ari_staged_values WHERE property_id = ANY(:property_ids) AND stage = :stage;

-- name: upsert_room_type_days(stage, property_ids)!
-- Inventory from every staged row; restrictions from the rows without a rate plan (those are
-- the room type's). Per field, the newest staged value is written, and only over an older one:
-- a value written by a newer batch stays, and a batch applied again changes nothing (the WHERE
-- leaves such rows untouched). Rows are taken in key order, the order bookings lock them in.
INSERT INTO room_type_days AS t (
    property_id, date, room_type_id,
    available, available_seq, closed, closed_seq, min_stay, min_stay_seq, max_stay, max_stay_seq,
    closed_to_arrival, closed_to_arrival_seq, closed_to_departure, closed_to_departure_seq)
SELECT property_id, date, room_type_id,
       (array_agg(available ORDER BY seq DESC) FILTER (WHERE available IS NOT NULL))[1],
       max(seq) FILTER (WHERE available IS NOT NULL),
       (array_agg(closed ORDER BY seq DESC)
            FILTER (WHERE closed IS NOT NULL AND rate_plan_id IS NULL))[1],
       max(seq) FILTER (WHERE closed IS NOT NULL AND rate_plan_id IS NULL),
       (array_agg(min_stay ORDER BY seq DESC)
            FILTER (WHERE min_stay IS NOT NULL AND rate_plan_id IS NULL))[1],
       max(seq) FILTER (WHERE min_stay IS NOT NULL AND rate_plan_id IS NULL),
       (array_agg(max_stay ORDER BY seq DESC)
            FILTER (WHERE max_stay IS NOT NULL AND rate_plan_id IS NULL))[1],
       max(seq) FILTER (WHERE max_stay IS NOT NULL AND rate_plan_id IS NULL),
       (array_agg(closed_to_arrival ORDER BY seq DESC)
            FILTER (WHERE closed_to_arrival IS NOT NULL AND rate_plan_id IS NULL))[1],
       max(seq) FILTER (WHERE closed_to_arrival IS NOT NULL AND rate_plan_id IS NULL),
       (array_agg(closed_to_departure ORDER BY seq DESC)
            FILTER (WHERE closed_to_departure IS NOT NULL AND rate_plan_id IS NULL))[1],
       max(seq) FILTER (WHERE closed_to_departure IS NOT NULL AND rate_plan_id IS NULL)
  FROM ari_staged_values
 WHERE property_id = ANY(:property_ids) AND stage = :stage AND rejection IS NULL
   AND (available IS NOT NULL
        OR (rate_plan_id IS NULL
            AND num_nonnulls(closed, min_stay, max_stay, closed_to_arrival,
                             closed_to_departure) > 0))
 GROUP BY property_id, date, room_type_id
 ORDER BY property_id, date, room_type_id
ON CONFLICT (property_id, date, room_type_id) DO UPDATE SET
    available = CASE WHEN EXCLUDED.available_seq > coalesce(t.available_seq, -1)
                     THEN EXCLUDED.available ELSE t.available END,
    available_seq = greatest(t.available_seq, EXCLUDED.available_seq),
    closed = CASE WHEN EXCLUDED.closed_seq > coalesce(t.closed_seq, -1)
                  THEN EXCLUDED.closed ELSE t.closed END,
    closed_seq = greatest(t.closed_seq, EXCLUDED.closed_seq),
    min_stay = CASE WHEN EXCLUDED.min_stay_seq > coalesce(t.min_stay_seq, -1)
                    THEN EXCLUDED.min_stay ELSE t.min_stay END,
    min_stay_seq = greatest(t.min_stay_seq, EXCLUDED.min_stay_seq),
    max_stay = CASE WHEN EXCLUDED.max_stay_seq > coalesce(t.max_stay_seq, -1)
                    THEN EXCLUDED.max_stay ELSE t.max_stay END,
    max_stay_seq = greatest(t.max_stay_seq, EXCLUDED.max_stay_seq),
    closed_to_arrival = CASE WHEN EXCLUDED.closed_to_arrival_seq > coalesce(t.closed_to_arrival_seq, -1)
                             THEN EXCLUDED.closed_to_arrival ELSE t.closed_to_arrival END,
    closed_to_arrival_seq = greatest(t.closed_to_arrival_seq, EXCLUDED.closed_to_arrival_seq),
    closed_to_departure = CASE WHEN EXCLUDED.closed_to_departure_seq > coalesce(t.closed_to_departure_seq, -1)
                               THEN EXCLUDED.closed_to_departure ELSE t.closed_to_departure END,
    closed_to_departure_seq = greatest(t.closed_to_departure_seq, EXCLUDED.closed_to_departure_seq),
    updated_at = EXCLUDED.updated_at
WHERE EXCLUDED.available_seq > coalesce(t.available_seq, -1)
   OR EXCLUDED.closed_seq > coalesce(t.closed_seq, -1)
   OR EXCLUDED.min_stay_seq > coalesce(t.min_stay_seq, -1)
   OR EXCLUDED.max_stay_seq > coalesce(t.max_stay_seq, -1)
   OR EXCLUDED.closed_to_arrival_seq > coalesce(t.closed_to_arrival_seq, -1)
   OR EXCLUDED.closed_to_departure_seq > coalesce(t.closed_to_departure_seq, -1);

-- name: upsert_rate_plan_days(stage, property_ids)!
-- Prices and the rate plan's own restrictions, from the rows with a rate plan; per field as in
-- upsert_room_type_days.
INSERT INTO rate_plan_days AS t (
    property_id, date, room_type_id, rate_plan_id,
    rate, rate_seq, single_rate, single_rate_seq, extra_adult_rate, extra_adult_rate_seq,
    extra_child_rate, extra_child_rate_seq, closed, closed_seq, min_stay, min_stay_seq,
    max_stay, max_stay_seq, closed_to_arrival, closed_to_arrival_seq, closed_to_departure,
    closed_to_departure_seq)
SELECT property_id, date, room_type_id, rate_plan_id,
       (array_agg(rate ORDER BY seq DESC) FILTER (WHERE rate IS NOT NULL))[1],
       max(seq) FILTER (WHERE rate IS NOT NULL),
       (array_agg(single_rate ORDER BY seq DESC) FILTER (WHERE single_rate IS NOT NULL))[1],
       max(seq) FILTER (WHERE single_rate IS NOT NULL),
       (array_agg(extra_adult_rate ORDER BY seq DESC)
            FILTER (WHERE extra_adult_rate IS NOT NULL))[1],
       max(seq) FILTER (WHERE extra_adult_rate IS NOT NULL),
       (array_agg(extra_child_rate ORDER BY seq DESC)
            FILTER (WHERE extra_child_rate IS NOT NULL))[1],
       max(seq) FILTER (WHERE extra_child_rate IS NOT NULL),
       (array_agg(closed ORDER BY seq DESC) FILTER (WHERE closed IS NOT NULL))[1],
       max(seq) FILTER (WHERE closed IS NOT NULL),
       (array_agg(min_stay ORDER BY seq DESC) FILTER (WHERE min_stay IS NOT NULL))[1],
       max(seq) FILTER (WHERE min_stay IS NOT NULL),
       (array_agg(max_stay ORDER BY seq DESC) FILTER (WHERE max_stay IS NOT NULL))[1],
       max(seq) FILTER (WHERE max_stay IS NOT NULL),
       (array_agg(closed_to_arrival ORDER BY seq DESC)
            FILTER (WHERE closed_to_arrival IS NOT NULL))[1],
       max(seq) FILTER (WHERE closed_to_arrival IS NOT NULL),
       (array_agg(closed_to_departure ORDER BY seq DESC)
            FILTER (WHERE closed_to_departure IS NOT NULL))[1],
       max(seq) FILTER (WHERE closed_to_departure IS NOT NULL)
  FROM ari_staged_values
 WHERE property_id = ANY(:property_ids) AND stage = :stage AND rejection IS NULL
   AND rate_plan_id IS NOT NULL
   AND num_nonnulls(rate, single_rate, extra_adult_rate, extra_child_rate, closed, min_stay,
                    max_stay, closed_to_arrival, closed_to_departure) > 0
 GROUP BY property_id, date, room_type_id, rate_plan_id
 ORDER BY property_id, date, room_type_id, rate_plan_id
ON CONFLICT (property_id, date, room_type_id, rate_plan_id) DO UPDATE SET
    rate = CASE WHEN EXCLUDED.rate_seq > coalesce(t.rate_seq, -1)
                THEN EXCLUDED.rate ELSE t.rate END,
    rate_seq = greatest(t.rate_seq, EXCLUDED.rate_seq),
    single_rate = CASE WHEN EXCLUDED.single_rate_seq > coalesce(t.single_rate_seq, -1)
                       THEN EXCLUDED.single_rate ELSE t.single_rate END,
    single_rate_seq = greatest(t.single_rate_seq, EXCLUDED.single_rate_seq),
    extra_adult_rate = CASE WHEN EXCLUDED.extra_adult_rate_seq > coalesce(t.extra_adult_rate_seq, -1)
                            THEN EXCLUDED.extra_adult_rate ELSE t.extra_adult_rate END,
    extra_adult_rate_seq = greatest(t.extra_adult_rate_seq, EXCLUDED.extra_adult_rate_seq),
    extra_child_rate = CASE WHEN EXCLUDED.extra_child_rate_seq > coalesce(t.extra_child_rate_seq, -1)
                            THEN EXCLUDED.extra_child_rate ELSE t.extra_child_rate END,
    extra_child_rate_seq = greatest(t.extra_child_rate_seq, EXCLUDED.extra_child_rate_seq),
    closed = CASE WHEN EXCLUDED.closed_seq > coalesce(t.closed_seq, -1)
                  THEN EXCLUDED.closed ELSE t.closed END,
    closed_seq = greatest(t.closed_seq, EXCLUDED.closed_seq),
    min_stay = CASE WHEN EXCLUDED.min_stay_seq > coalesce(t.min_stay_seq, -1)
                    THEN EXCLUDED.min_stay ELSE t.min_stay END,
    min_stay_seq = greatest(t.min_stay_seq, EXCLUDED.min_stay_seq),
    max_stay = CASE WHEN EXCLUDED.max_stay_seq > coalesce(t.max_stay_seq, -1)
                    THEN EXCLUDED.max_stay ELSE t.max_stay END,
    max_stay_seq = greatest(t.max_stay_seq, EXCLUDED.max_stay_seq),
    closed_to_arrival = CASE WHEN EXCLUDED.closed_to_arrival_seq > coalesce(t.closed_to_arrival_seq, -1)
                             THEN EXCLUDED.closed_to_arrival ELSE t.closed_to_arrival END,
    closed_to_arrival_seq = greatest(t.closed_to_arrival_seq, EXCLUDED.closed_to_arrival_seq),
    closed_to_departure = CASE WHEN EXCLUDED.closed_to_departure_seq > coalesce(t.closed_to_departure_seq, -1)
                               THEN EXCLUDED.closed_to_departure ELSE t.closed_to_departure END,
    closed_to_departure_seq = greatest(t.closed_to_departure_seq, EXCLUDED.closed_to_departure_seq),
    updated_at = EXCLUDED.updated_at
WHERE EXCLUDED.rate_seq > coalesce(t.rate_seq, -1)
   OR EXCLUDED.single_rate_seq > coalesce(t.single_rate_seq, -1)
   OR EXCLUDED.extra_adult_rate_seq > coalesce(t.extra_adult_rate_seq, -1)
   OR EXCLUDED.extra_child_rate_seq > coalesce(t.extra_child_rate_seq, -1)
   OR EXCLUDED.closed_seq > coalesce(t.closed_seq, -1)
   OR EXCLUDED.min_stay_seq > coalesce(t.min_stay_seq, -1)
   OR EXCLUDED.max_stay_seq > coalesce(t.max_stay_seq, -1)
   OR EXCLUDED.closed_to_arrival_seq > coalesce(t.closed_to_arrival_seq, -1)
   OR EXCLUDED.closed_to_departure_seq > coalesce(t.closed_to_departure_seq, -1);
