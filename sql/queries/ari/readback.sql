-- GET /ari (contract 11.1): the stored ARI of one hotel, per level, every date of the range,
-- with the rooms sold and, per field, the batch in force, as the answer's JSON text. Written
-- by PostgreSQL rather than assembled in Python: a year of 10 room types x 3 rate plans is
-- 14,640 day objects, which cost Python about 220 ms of CPU to build and encode.
--
-- Provenance: each value column has a `*_seq` beside it, written by the apply's upsert with the
-- value (sql/queries/ari/apply.sql): the acceptance order of the item that wrote it, batch seq
-- x 8192 + item index. The batch is that order divided back.

-- name: readback_document(mapping_id, property_id, partner_id, environment, hotel_code, first_date, last_date, room_type_codes, rate_plan_codes)$
WITH dates AS (
    SELECT d::date AS date
      FROM generate_series(:first_date::date, :last_date::date, interval '1 day') AS d
),
-- The caller's room types of the hotel, and under each the caller's rate plans selling it.
rts AS (
    SELECT prt.room_type_code, prt.room_type_id
      FROM partner_room_types prt
     WHERE prt.mapping_id = :mapping_id
       AND (:room_type_codes::text[] IS NULL
            OR prt.room_type_code = ANY(:room_type_codes::text[]))
),
plans AS (
    SELECT rts.room_type_id, prp.rate_plan_code, prp.rate_plan_id, rp.currency
      FROM rts
      JOIN rate_plan_room_types rprt ON rprt.room_type_id = rts.room_type_id
      JOIN partner_rate_plans prp
        ON prp.rate_plan_id = rprt.rate_plan_id AND prp.mapping_id = :mapping_id
      JOIN rate_plans rp ON rp.id = prp.rate_plan_id
     WHERE :rate_plan_codes::text[] IS NULL
        OR prp.rate_plan_code = ANY(:rate_plan_codes::text[])
),
room_days AS MATERIALIZED (
    SELECT t.*
      FROM room_type_days t
     WHERE t.property_id = :property_id AND t.date BETWEEN :first_date AND :last_date
       AND t.room_type_id IN (SELECT room_type_id FROM rts)
),
plan_days AS MATERIALIZED (
    SELECT t.*
      FROM rate_plan_days t
     WHERE t.property_id = :property_id AND t.date BETWEEN :first_date AND :last_date
       AND (t.room_type_id, t.rate_plan_id) IN (SELECT room_type_id, rate_plan_id FROM plans)
),
-- Rooms per (room type, night) held by confirmed pull bookings and by the unreleased nights of
-- pushed reservations (a cancel or a modify releases them), every partner together. A pushed
-- reservation counts every room it sold, also those inventory could not cover (the shortfall
-- is in reconciliation).
held AS (
    SELECT b.room_type_id, d::date AS date, b.rooms
      FROM bookings b,
           generate_series(greatest(b.check_in, :first_date::date),
                           least(b.check_out - 1, :last_date::date), interval '1 day') AS d
     WHERE b.property_id = :property_id AND b.status = 'confirmed'
       AND b.check_out > :first_date::date AND b.check_in <= :last_date::date
       AND b.room_type_id IN (SELECT room_type_id FROM rts)
    UNION ALL
    SELECT n.room_type_id, n.date, n.wanted
      FROM reservation_nights n
     WHERE n.property_id = :property_id AND n.released_at IS NULL
       AND n.date BETWEEN :first_date AND :last_date
       AND n.room_type_id IN (SELECT room_type_id FROM rts)
),
sold AS MATERIALIZED (
    SELECT room_type_id, date, sum(rooms)::integer AS rooms_sold
      FROM held GROUP BY room_type_id, date
),
-- The batches the rows name lie between the lowest and the highest acceptance order found, and
-- are the hotel's own: read by (property_id, seq) rather than collected value by value.
bounds AS (
    SELECT least(rd.lo, pd.lo) / 8192 AS lo, greatest(rd.hi, pd.hi) / 8192 AS hi
      FROM (SELECT min(least(available_seq, closed_seq, min_stay_seq, max_stay_seq,
                             closed_to_arrival_seq, closed_to_departure_seq)) AS lo,
                   max(greatest(available_seq, closed_seq, min_stay_seq, max_stay_seq,
                                closed_to_arrival_seq, closed_to_departure_seq)) AS hi
              FROM room_days) AS rd,
           (SELECT min(least(rate_seq, single_rate_seq, extra_adult_rate_seq,
                             extra_child_rate_seq, closed_seq, min_stay_seq, max_stay_seq,
                             closed_to_arrival_seq, closed_to_departure_seq)) AS lo,
                   max(greatest(rate_seq, single_rate_seq, extra_adult_rate_seq,
                                extra_child_rate_seq, closed_seq, min_stay_seq, max_stay_seq,
                                closed_to_arrival_seq, closed_to_departure_seq)) AS hi
              FROM plan_days) AS pd
),
-- Batch seq -> what set_by shows: its id to its own partner, else "other_partner".
names AS (
    SELECT coalesce(jsonb_object_agg(b.seq::text,
               CASE WHEN b.partner_id = :partner_id AND b.environment = :environment
                    THEN b.id ELSE 'other_partner' END), '{}'::jsonb) AS of_seq
      FROM bounds, ari_batches b
     WHERE b.property_id = :property_id AND b.seq BETWEEN bounds.lo AND bounds.hi
),
-- Each room type's and rate plan's days in one pass over (dates x rows), each day a record
-- turned into JSON by json_agg (half the cost of json_build_object per object). A set_by
-- field is named only when it has a value set by a batch (a batch id is [A-Za-z0-9-], written
-- into the JSON text as it is).
room_json AS (
    SELECT r.room_type_id, r.room_type_code, json_agg(x ORDER BY x.date) AS days
      FROM rts r CROSS JOIN dates d CROSS JOIN names n
      LEFT JOIN room_days t ON t.room_type_id = r.room_type_id AND t.date = d.date
      LEFT JOIN sold s ON s.room_type_id = r.room_type_id AND s.date = d.date
     CROSS JOIN LATERAL (
        SELECT d.date, t.available AS availability, coalesce(s.rooms_sold, 0) AS rooms_sold,
               t.closed, t.min_stay, t.max_stay, t.closed_to_arrival, t.closed_to_departure,
               concat('{', concat_ws(',',
                   CASE WHEN t.available IS NOT NULL
                        THEN '"availability":"' || (n.of_seq ->> (t.available_seq / 8192)::text) || '"' END,
                   CASE WHEN t.closed IS NOT NULL
                        THEN '"closed":"' || (n.of_seq ->> (t.closed_seq / 8192)::text) || '"' END,
                   CASE WHEN t.min_stay IS NOT NULL
                        THEN '"min_stay":"' || (n.of_seq ->> (t.min_stay_seq / 8192)::text) || '"' END,
                   CASE WHEN t.max_stay IS NOT NULL
                        THEN '"max_stay":"' || (n.of_seq ->> (t.max_stay_seq / 8192)::text) || '"' END,
                   CASE WHEN t.closed_to_arrival IS NOT NULL
                        THEN '"closed_to_arrival":"' || (n.of_seq ->> (t.closed_to_arrival_seq / 8192)::text) || '"' END,
                   CASE WHEN t.closed_to_departure IS NOT NULL
                        THEN '"closed_to_departure":"' || (n.of_seq ->> (t.closed_to_departure_seq / 8192)::text) || '"' END), '}')::json AS set_by) AS x
     GROUP BY r.room_type_id, r.room_type_code
),
plan_json AS (
    SELECT p.room_type_id, p.rate_plan_code,
           json_build_object('rate_plan_code', p.rate_plan_code, 'currency', p.currency,
                             'days', json_agg(x ORDER BY x.date)) AS plan
      FROM plans p CROSS JOIN dates d CROSS JOIN names n
      LEFT JOIN plan_days t
        ON t.room_type_id = p.room_type_id AND t.rate_plan_id = p.rate_plan_id
       AND t.date = d.date
     CROSS JOIN LATERAL (
        SELECT d.date, t.rate, t.single_rate, t.extra_adult_rate, t.extra_child_rate, t.closed,
               t.min_stay, t.max_stay, t.closed_to_arrival, t.closed_to_departure,
               concat('{', concat_ws(',',
                       CASE WHEN t.rate IS NOT NULL
                            THEN '"rate":"' || (n.of_seq ->> (t.rate_seq / 8192)::text) || '"' END,
                       CASE WHEN t.single_rate IS NOT NULL
                            THEN '"single_rate":"' || (n.of_seq ->> (t.single_rate_seq / 8192)::text) || '"' END,
                       CASE WHEN t.extra_adult_rate IS NOT NULL
                            THEN '"extra_adult_rate":"' || (n.of_seq ->> (t.extra_adult_rate_seq / 8192)::text) || '"' END,
                       CASE WHEN t.extra_child_rate IS NOT NULL
                            THEN '"extra_child_rate":"' || (n.of_seq ->> (t.extra_child_rate_seq / 8192)::text) || '"' END,
                       CASE WHEN t.closed IS NOT NULL
                            THEN '"closed":"' || (n.of_seq ->> (t.closed_seq / 8192)::text) || '"' END,
                       CASE WHEN t.min_stay IS NOT NULL
                            THEN '"min_stay":"' || (n.of_seq ->> (t.min_stay_seq / 8192)::text) || '"' END,
                       CASE WHEN t.max_stay IS NOT NULL
                            THEN '"max_stay":"' || (n.of_seq ->> (t.max_stay_seq / 8192)::text) || '"' END,
                       CASE WHEN t.closed_to_arrival IS NOT NULL
                            THEN '"closed_to_arrival":"' || (n.of_seq ->> (t.closed_to_arrival_seq / 8192)::text) || '"' END,
                       CASE WHEN t.closed_to_departure IS NOT NULL
                            THEN '"closed_to_departure":"' || (n.of_seq ->> (t.closed_to_departure_seq / 8192)::text) || '"' END), '}')::json AS set_by) AS x
     GROUP BY p.room_type_id, p.rate_plan_id, p.rate_plan_code, p.currency
)
SELECT json_build_object(
    'hotel_code', :hotel_code::text, 'from_date', :first_date::date,
    'to_date', :last_date::date,
    'room_types', coalesce((
        SELECT json_agg(json_build_object(
            'room_type_code', r.room_type_code, 'days', r.days,
            'rate_plans', coalesce((SELECT json_agg(pj.plan ORDER BY pj.rate_plan_code)
                                      FROM plan_json pj
                                     WHERE pj.room_type_id = r.room_type_id), '[]'::json))
          ORDER BY r.room_type_code)
          FROM room_json r), '[]'::json))::text;
