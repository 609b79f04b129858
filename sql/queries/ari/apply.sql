-- Applying a group of batches, in the worker, in one transaction: lock and claim them
-- (batches.sql), stage the values of the items that can apply, then one upsert per day table.
-- Set-based throughout: a 5,000-item batch, or 200 one-item batches, is four statements.

-- name: create_pushed_values#
-- What a batch's applicable items say, one row per (item, date): an ARI item is one date, a
-- restriction item every selected weekday of its range. seq orders the values (batch seq x
-- 8192 + item index: later batches, and later items of one batch, are newer).
CREATE TEMP TABLE pushed_values (
    seq                  bigint NOT NULL,
    property_id          bigint NOT NULL,
    date                 date NOT NULL,
    room_type_id         bigint NOT NULL,
    rate_plan_id         bigint,
    available            integer,
    rate                 numeric,
    single_rate          numeric,
    extra_adult_rate     numeric,
    extra_child_rate     numeric,
    closed               boolean,
    min_stay             smallint,
    max_stay             smallint,
    closed_to_arrival    boolean,
    closed_to_departure  boolean
) ON COMMIT DROP;

-- name: stage_batch_items(batch_ids, property_ids)
-- Judges every item of the batches (a group: one statement whatever its size) against the
-- partner's mapping (contract section 8), stages the values of those that can apply, and
-- returns the others with their batch and rejection code.
-- An ARI item's date is a one-day range; a range is clipped to start yesterday (in the hotel's
-- timezone), and refused whole when it ends before that or more than 2 years ahead.
WITH batch AS (
    SELECT b.id, b.seq, b.property_id, b.mapping_id, b.items, b.sandbox_scenario,
           (now() AT TIME ZONE pr.timezone)::date AS today
      FROM ari_batches b
      JOIN properties pr ON pr.id = b.property_id
     WHERE b.property_id = ANY(:property_ids) AND b.id = ANY(:batch_ids)
),
item AS (
    SELECT b.id AS batch_id, b.seq * 8192 + (e.ord - 1) AS seq, (e.ord - 1)::integer AS index,
           b.property_id, b.mapping_id, b.today, b.sandbox_scenario,
           e.v->>'room_type_code' AS room_type_code,
           e.v->>'rate_plan_code' AS rate_plan_code,
           coalesce(e.v->>'date', e.v->>'from_date')::date AS from_date,
           coalesce(e.v->>'date', e.v->>'to_date')::date AS to_date,
           CASE WHEN e.v ? 'days_of_week' THEN ARRAY(
               SELECT d::integer FROM jsonb_array_elements_text(e.v->'days_of_week') AS d)
           END AS days_of_week,
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
      FROM batch b, jsonb_array_elements(b.items) WITH ORDINALITY AS e(v, ord)
),
judged AS (
    SELECT i.*, prt.room_type_id, prp.rate_plan_id, rp.currency AS plan_currency,
           CASE
             -- X-Sandbox-Scenario: partially_applied (contract 11.4)
             WHEN i.index = 0 AND i.sandbox_scenario = 'partially_applied'
               THEN 'sandbox_scenario'
             WHEN prt.room_type_id IS NULL THEN 'unknown_room_type'
             WHEN i.rate_plan_code IS NOT NULL AND prp.rate_plan_id IS NULL
               THEN 'unknown_rate_plan'
             WHEN prp.rate_plan_id IS NOT NULL AND NOT EXISTS (
                    SELECT 1 FROM rate_plan_room_types s
                     WHERE s.rate_plan_id = prp.rate_plan_id
                       AND s.room_type_id = prt.room_type_id)
               THEN 'rate_plan_not_for_room_type'
             WHEN i.rate_plan_code IS NULL
                  AND num_nonnulls(i.rate, i.single_rate, i.extra_adult_rate,
                                   i.extra_child_rate) > 0
               THEN 'price_without_rate_plan'
             WHEN i.currency <> rp.currency THEN 'currency_mismatch'
             WHEN i.min_stay > i.max_stay THEN 'min_stay_above_max_stay'
             WHEN i.to_date < i.today - 1 THEN 'date_in_past'
             WHEN i.to_date > (i.today + interval '2 years')::date THEN 'date_too_far'
           END AS rejection
      FROM item i
      LEFT JOIN partner_room_types prt
             ON prt.mapping_id = i.mapping_id AND prt.room_type_code = i.room_type_code
      LEFT JOIN partner_rate_plans prp
             ON prp.mapping_id = i.mapping_id AND prp.rate_plan_code = i.rate_plan_code
      LEFT JOIN rate_plans rp ON rp.id = prp.rate_plan_id
),
staged AS (
    INSERT INTO pushed_values (seq, property_id, date, room_type_id, rate_plan_id, available,
                               rate, single_rate, extra_adult_rate, extra_child_rate, closed,
                               min_stay, max_stay, closed_to_arrival, closed_to_departure)
    SELECT j.seq, j.property_id, d::date, j.room_type_id, j.rate_plan_id, j.available, j.rate,
           j.single_rate, j.extra_adult_rate, j.extra_child_rate, j.closed, j.min_stay,
           j.max_stay, j.closed_to_arrival, j.closed_to_departure
      FROM judged j,
           generate_series(greatest(j.from_date, j.today - 1), j.to_date, interval '1 day') AS d
     WHERE j.rejection IS NULL
       AND (j.days_of_week IS NULL
            OR extract(isodow FROM d)::integer - 1 = ANY (j.days_of_week))
)
SELECT batch_id, index, rejection AS code, room_type_code, rate_plan_code, currency,
       plan_currency, from_date, to_date
  FROM judged
 WHERE rejection IS NOT NULL
 ORDER BY seq;

-- name: upsert_room_type_days()!
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
  FROM pushed_values
 WHERE available IS NOT NULL
    OR (rate_plan_id IS NULL
        AND num_nonnulls(closed, min_stay, max_stay, closed_to_arrival, closed_to_departure) > 0)
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

-- name: upsert_rate_plan_days()!
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
  FROM pushed_values
 WHERE rate_plan_id IS NOT NULL
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
