-- The dry run of PUT /ari and PUT /ari/restrictions (contract 11.2). It runs the worker's own
-- statements (stage_batch_items, upsert_*_days) in a transaction that is rolled back; these two
-- only keep the stored values the batch touches from before the upserts, and compare.

-- name: keep_days_before_dry_run#
-- The rows the staged values address, as they are before the upserts (absent: no row yet).
CREATE TEMP TABLE room_type_days_before ON COMMIT DROP AS
SELECT t.*
  FROM room_type_days t
 WHERE (t.property_id, t.date, t.room_type_id) IN (
        SELECT property_id, date, room_type_id FROM pushed_values);
CREATE TEMP TABLE rate_plan_days_before ON COMMIT DROP AS
SELECT t.*
  FROM rate_plan_days t
 WHERE (t.property_id, t.date, t.room_type_id, t.rate_plan_id) IN (
        SELECT property_id, date, room_type_id, rate_plan_id FROM pushed_values
         WHERE rate_plan_id IS NOT NULL);

-- name: dry_run_changes(batch_seq, room_type_codes, rate_plan_codes)$
-- Every field the upserts changed, one change per (level, date, field), as the answer's JSON
-- array: the index of the item whose value is now in force (its acceptance order is batch seq
-- x 8192 + index) and that item's codes (the arrays hold each item's as sent, in item order;
-- the rate plan's only for a rate-plan-level field). Field names are the push payload's. Values
-- compare as jsonb: 120 and 120.00 are the same amount.
WITH room_after AS (
    SELECT t.* FROM room_type_days t
     WHERE (t.property_id, t.date, t.room_type_id) IN (
            SELECT property_id, date, room_type_id FROM pushed_values)
),
plan_after AS (
    SELECT t.* FROM rate_plan_days t
     WHERE (t.property_id, t.date, t.room_type_id, t.rate_plan_id) IN (
            SELECT property_id, date, room_type_id, rate_plan_id FROM pushed_values
             WHERE rate_plan_id IS NOT NULL)
),
changed AS (
    SELECT a.date, false AS plan_level, f.ord, f.field, f.old, f.new, f.seq
      FROM room_after a
      LEFT JOIN room_type_days_before b USING (property_id, date, room_type_id)
     CROSS JOIN LATERAL (VALUES
        (1, 'availability', to_jsonb(b.available), to_jsonb(a.available), a.available_seq),
        (5, 'closed', to_jsonb(b.closed), to_jsonb(a.closed), a.closed_seq),
        (6, 'min_stay', to_jsonb(b.min_stay), to_jsonb(a.min_stay), a.min_stay_seq),
        (7, 'max_stay', to_jsonb(b.max_stay), to_jsonb(a.max_stay), a.max_stay_seq),
        (8, 'closed_to_arrival', to_jsonb(b.closed_to_arrival), to_jsonb(a.closed_to_arrival),
         a.closed_to_arrival_seq),
        (9, 'closed_to_departure', to_jsonb(b.closed_to_departure),
         to_jsonb(a.closed_to_departure), a.closed_to_departure_seq)
     ) AS f(ord, field, old, new, seq)
    UNION ALL
    SELECT a.date, true, f.ord, f.field, f.old, f.new, f.seq
      FROM plan_after a
      LEFT JOIN rate_plan_days_before b USING (property_id, date, room_type_id, rate_plan_id)
     CROSS JOIN LATERAL (VALUES
        (1, 'rate', to_jsonb(b.rate), to_jsonb(a.rate), a.rate_seq),
        (2, 'single_rate', to_jsonb(b.single_rate), to_jsonb(a.single_rate), a.single_rate_seq),
        (3, 'extra_adult_rate', to_jsonb(b.extra_adult_rate), to_jsonb(a.extra_adult_rate),
         a.extra_adult_rate_seq),
        (4, 'extra_child_rate', to_jsonb(b.extra_child_rate), to_jsonb(a.extra_child_rate),
         a.extra_child_rate_seq),
        (5, 'closed', to_jsonb(b.closed), to_jsonb(a.closed), a.closed_seq),
        (6, 'min_stay', to_jsonb(b.min_stay), to_jsonb(a.min_stay), a.min_stay_seq),
        (7, 'max_stay', to_jsonb(b.max_stay), to_jsonb(a.max_stay), a.max_stay_seq),
        (8, 'closed_to_arrival', to_jsonb(b.closed_to_arrival), to_jsonb(a.closed_to_arrival),
         a.closed_to_arrival_seq),
        (9, 'closed_to_departure', to_jsonb(b.closed_to_departure),
         to_jsonb(a.closed_to_departure), a.closed_to_departure_seq)
     ) AS f(ord, field, old, new, seq)
),
ours AS (
    SELECT (seq - :batch_seq * 8192)::integer AS index, date, plan_level, ord, field, old, new
      FROM changed
     WHERE old IS DISTINCT FROM new AND seq >= :batch_seq * 8192
),
-- Joined, not subscripted: an element of a text[] is found by walking the array from its start.
codes AS (
    SELECT (c.ord - 1)::integer AS index, c.room_type_code, c.rate_plan_code
      FROM unnest(:room_type_codes::text[], :rate_plan_codes::text[])
           WITH ORDINALITY AS c(room_type_code, rate_plan_code, ord)
)
SELECT coalesce(json_agg(json_build_object(
           'index', o.index, 'room_type_code', c.room_type_code,
           'rate_plan_code', CASE WHEN o.plan_level THEN c.rate_plan_code END,
           'date', o.date, 'field', o.field, 'from', o.old, 'to', o.new)
         ORDER BY o.index, o.date, o.plan_level, o.ord), '[]'::json)::text
  FROM ours o JOIN codes c USING (index);

-- name: dry_run_batch_seq(id)^
-- The acceptance order the dry run's own (never committed) batch drew.
SELECT seq, property_id FROM ari_batches WHERE id = :id;
