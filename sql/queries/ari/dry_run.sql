-- The dry run of PUT /ari and PUT /ari/restrictions (contract 11.2). It runs the worker's own
-- statements (stage_batch_items, upsert_*_days) in a transaction that is rolled back; these
-- give the upserts copies of the rows the batch touches to write into, and compare.

-- name: create_day_rows_before#
-- The rows the staged values address, as they are now (absent: no row yet), kept twice: as they
-- are (*_before, filled by the two statements below) and in temporary tables named like the day
-- tables (shadow_day_tables). PostgreSQL looks a name up among the session's temporary tables
-- first, so from then on in this transaction `room_type_days` and `rate_plan_days` are these
-- copies, and the worker's upserts write into them, unchanged. A copy has the day table's key,
-- checks and defaults; it lacks its foreign keys (the judged items name the hotel's own room
-- types and rate plans), its change-log triggers (their rows were rolled back anyway) and its
-- 11 million rows: writing 5,000 values into the day tables themselves cost 100 ms of the 400,
-- and locked the rows meanwhile.
CREATE TEMP TABLE room_type_days_before (LIKE room_type_days) ON COMMIT DROP;
CREATE TEMP TABLE rate_plan_days_before (LIKE rate_plan_days) ON COMMIT DROP;

-- name: remember_room_type_days(stage, property_ids)!
INSERT INTO room_type_days_before
SELECT t.*
  FROM room_type_days t
 WHERE t.property_id = ANY(:property_ids)
   AND (t.property_id, t.date, t.room_type_id) IN (
        SELECT property_id, date, room_type_id
          FROM ari_staged_values
         WHERE property_id = ANY(:property_ids) AND stage = :stage AND rejection IS NULL);

-- name: remember_rate_plan_days(stage, property_ids)!
INSERT INTO rate_plan_days_before
SELECT t.*
  FROM rate_plan_days t
 WHERE t.property_id = ANY(:property_ids)
   AND (t.property_id, t.date, t.room_type_id, t.rate_plan_id) IN (
        SELECT property_id, date, room_type_id, rate_plan_id
          FROM ari_staged_values
         WHERE property_id = ANY(:property_ids) AND stage = :stage AND rejection IS NULL
           AND rate_plan_id IS NOT NULL);

-- name: shadow_day_tables#
-- After the two above: the copies the upserts write into, under the day tables' names.
CREATE TEMP TABLE room_type_days (LIKE room_type_days INCLUDING ALL) ON COMMIT DROP;
INSERT INTO room_type_days SELECT * FROM room_type_days_before;
CREATE TEMP TABLE rate_plan_days (LIKE rate_plan_days INCLUDING ALL) ON COMMIT DROP;
INSERT INTO rate_plan_days SELECT * FROM rate_plan_days_before;

-- name: dry_run_changes(batch_seq, room_type_codes, rate_plan_codes)$
-- Every field the upserts changed (the copies against the rows before), one change per (level,
-- date, field), as the answer's JSON array: the index of the item whose value is now in force
-- (its acceptance order is ari_item_order(batch seq, index), migration 0016) and that item's
-- codes (the arrays hold each item's as sent, in item order; the rate plan's only for a
-- rate-plan-level field). Field names are the push payload's. Values compare as values: 120
-- and 120.00 are the same amount.
-- Written for 20,000 changes: each (row, field) is one branch's filter over the rows paired
-- once (a VALUES list per row cost 10 us a row), and each change is written by concatenation
-- of parts made once per item, row or field (json_build_object cost twice as much), with the
-- values in their JSON form: numbers and booleans as PostgreSQL writes them.
WITH room_pairs AS MATERIALIZED (
    SELECT a.date, to_char(a.date, 'YYYY-MM-DD') AS day,
           a.available, b.available AS available_before, a.available_seq,
           a.closed, b.closed AS closed_before, a.closed_seq,
           a.min_stay, b.min_stay AS min_stay_before, a.min_stay_seq,
           a.max_stay, b.max_stay AS max_stay_before, a.max_stay_seq,
           a.closed_to_arrival, b.closed_to_arrival AS closed_to_arrival_before, a.closed_to_arrival_seq,
           a.closed_to_departure, b.closed_to_departure AS closed_to_departure_before, a.closed_to_departure_seq
      FROM room_type_days a
      LEFT JOIN room_type_days_before b USING (property_id, date, room_type_id)
),
plan_pairs AS MATERIALIZED (
    SELECT a.date, to_char(a.date, 'YYYY-MM-DD') AS day,
           a.rate, b.rate AS rate_before, a.rate_seq,
           a.single_rate, b.single_rate AS single_rate_before, a.single_rate_seq,
           a.extra_adult_rate, b.extra_adult_rate AS extra_adult_rate_before, a.extra_adult_rate_seq,
           a.extra_child_rate, b.extra_child_rate AS extra_child_rate_before, a.extra_child_rate_seq,
           a.closed, b.closed AS closed_before, a.closed_seq,
           a.min_stay, b.min_stay AS min_stay_before, a.min_stay_seq,
           a.max_stay, b.max_stay AS max_stay_before, a.max_stay_seq,
           a.closed_to_arrival, b.closed_to_arrival AS closed_to_arrival_before, a.closed_to_arrival_seq,
           a.closed_to_departure, b.closed_to_departure AS closed_to_departure_before, a.closed_to_departure_seq
      FROM rate_plan_days a
      LEFT JOIN rate_plan_days_before b USING (property_id, date, room_type_id, rate_plan_id)
),
changed AS (
    SELECT available_seq AS seq, date, false AS plan_level, 1 AS ord, day,
           '","field":"availability","from":' AS field, available_before::text AS old, available::text AS new
      FROM room_pairs WHERE available_seq >= ari_first_order(:batch_seq)
       AND available IS DISTINCT FROM available_before
    UNION ALL
    SELECT closed_seq AS seq, date, false AS plan_level, 5 AS ord, day,
           '","field":"closed","from":' AS field, closed_before::text AS old, closed::text AS new
      FROM room_pairs WHERE closed_seq >= ari_first_order(:batch_seq)
       AND closed IS DISTINCT FROM closed_before
    UNION ALL
    SELECT min_stay_seq AS seq, date, false AS plan_level, 6 AS ord, day,
           '","field":"min_stay","from":' AS field, min_stay_before::text AS old, min_stay::text AS new
      FROM room_pairs WHERE min_stay_seq >= ari_first_order(:batch_seq)
       AND min_stay IS DISTINCT FROM min_stay_before
    UNION ALL
    SELECT max_stay_seq AS seq, date, false AS plan_level, 7 AS ord, day,
           '","field":"max_stay","from":' AS field, max_stay_before::text AS old, max_stay::text AS new
      FROM room_pairs WHERE max_stay_seq >= ari_first_order(:batch_seq)
       AND max_stay IS DISTINCT FROM max_stay_before
    UNION ALL
    SELECT closed_to_arrival_seq AS seq, date, false AS plan_level, 8 AS ord, day,
           '","field":"closed_to_arrival","from":' AS field, closed_to_arrival_before::text AS old, closed_to_arrival::text AS new
      FROM room_pairs WHERE closed_to_arrival_seq >= ari_first_order(:batch_seq)
       AND closed_to_arrival IS DISTINCT FROM closed_to_arrival_before
    UNION ALL
    SELECT closed_to_departure_seq AS seq, date, false AS plan_level, 9 AS ord, day,
           '","field":"closed_to_departure","from":' AS field, closed_to_departure_before::text AS old, closed_to_departure::text AS new
      FROM room_pairs WHERE closed_to_departure_seq >= ari_first_order(:batch_seq)
       AND closed_to_departure IS DISTINCT FROM closed_to_departure_before
    UNION ALL
    SELECT rate_seq AS seq, date, true AS plan_level, 1 AS ord, day,
           '","field":"rate","from":' AS field, rate_before::text AS old, rate::text AS new
      FROM plan_pairs WHERE rate_seq >= ari_first_order(:batch_seq)
       AND rate IS DISTINCT FROM rate_before
    UNION ALL
    SELECT single_rate_seq AS seq, date, true AS plan_level, 2 AS ord, day,
           '","field":"single_rate","from":' AS field, single_rate_before::text AS old, single_rate::text AS new
      FROM plan_pairs WHERE single_rate_seq >= ari_first_order(:batch_seq)
       AND single_rate IS DISTINCT FROM single_rate_before
    UNION ALL
    SELECT extra_adult_rate_seq AS seq, date, true AS plan_level, 3 AS ord, day,
           '","field":"extra_adult_rate","from":' AS field, extra_adult_rate_before::text AS old, extra_adult_rate::text AS new
      FROM plan_pairs WHERE extra_adult_rate_seq >= ari_first_order(:batch_seq)
       AND extra_adult_rate IS DISTINCT FROM extra_adult_rate_before
    UNION ALL
    SELECT extra_child_rate_seq AS seq, date, true AS plan_level, 4 AS ord, day,
           '","field":"extra_child_rate","from":' AS field, extra_child_rate_before::text AS old, extra_child_rate::text AS new
      FROM plan_pairs WHERE extra_child_rate_seq >= ari_first_order(:batch_seq)
       AND extra_child_rate IS DISTINCT FROM extra_child_rate_before
    UNION ALL
    SELECT closed_seq AS seq, date, true AS plan_level, 5 AS ord, day,
           '","field":"closed","from":' AS field, closed_before::text AS old, closed::text AS new
      FROM plan_pairs WHERE closed_seq >= ari_first_order(:batch_seq)
       AND closed IS DISTINCT FROM closed_before
    UNION ALL
    SELECT min_stay_seq AS seq, date, true AS plan_level, 6 AS ord, day,
           '","field":"min_stay","from":' AS field, min_stay_before::text AS old, min_stay::text AS new
      FROM plan_pairs WHERE min_stay_seq >= ari_first_order(:batch_seq)
       AND min_stay IS DISTINCT FROM min_stay_before
    UNION ALL
    SELECT max_stay_seq AS seq, date, true AS plan_level, 7 AS ord, day,
           '","field":"max_stay","from":' AS field, max_stay_before::text AS old, max_stay::text AS new
      FROM plan_pairs WHERE max_stay_seq >= ari_first_order(:batch_seq)
       AND max_stay IS DISTINCT FROM max_stay_before
    UNION ALL
    SELECT closed_to_arrival_seq AS seq, date, true AS plan_level, 8 AS ord, day,
           '","field":"closed_to_arrival","from":' AS field, closed_to_arrival_before::text AS old, closed_to_arrival::text AS new
      FROM plan_pairs WHERE closed_to_arrival_seq >= ari_first_order(:batch_seq)
       AND closed_to_arrival IS DISTINCT FROM closed_to_arrival_before
    UNION ALL
    SELECT closed_to_departure_seq AS seq, date, true AS plan_level, 9 AS ord, day,
           '","field":"closed_to_departure","from":' AS field, closed_to_departure_before::text AS old, closed_to_departure::text AS new
      FROM plan_pairs WHERE closed_to_departure_seq >= ari_first_order(:batch_seq)
       AND closed_to_departure IS DISTINCT FROM closed_to_departure_before
),
-- Joined, not subscripted: an element of a text[] is found by walking the array from its start.
-- Each item's start of a change, at either level.
codes AS (
    SELECT (c.ord - 1)::integer AS index,
           concat('{"index":', c.ord - 1, ',"room_type_code":', to_json(c.room_type_code),
                  ',"rate_plan_code":null,"date":"') AS room_head,
           concat('{"index":', c.ord - 1, ',"room_type_code":', to_json(c.room_type_code),
                  ',"rate_plan_code":', coalesce(to_json(c.rate_plan_code)::text, 'null'),
                  ',"date":"') AS plan_head
      FROM unnest(:room_type_codes::text[], :rate_plan_codes::text[])
           WITH ORDINALITY AS c(room_type_code, rate_plan_code, ord)
)
SELECT concat('[', string_agg(concat(
           CASE WHEN o.plan_level THEN c.plan_head ELSE c.room_head END, o.day, o.field,
           coalesce(o.old, 'null'), ',"to":', coalesce(o.new, 'null'), '}'),
         ',' ORDER BY c.index, o.date, o.plan_level, o.ord), ']')
  FROM (SELECT (seq - ari_first_order(:batch_seq))::integer AS index, date, plan_level, ord,
               day, field, old, new
          FROM changed) AS o
  JOIN codes c USING (index);

-- name: dry_run_batch_seq(property_id, id)^
-- The acceptance order the dry run's own (never committed) batch drew.
SELECT id, seq, property_id FROM ari_batches WHERE property_id = :property_id AND id = :id;
