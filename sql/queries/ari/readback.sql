-- GET /ari (contract 11.1): the stored ARI of one hotel, per level, every date of the range,
-- with the rooms sold and the batch in force per field. Plain rows, read in one snapshot
-- (Database.snapshot); connectivity/ari/readback_document.py writes the answer's JSON.
--
-- Why rows and not the JSON itself: a year of 10 room types x 3 rate plans is 14,640 day
-- objects. Written by PostgreSQL (json_agg of a record per day, or string concatenation) they
-- cost 60-90 ms of database CPU, the scarcest CPU of the service; these reads cost about 10 ms
-- there, and the web process reads the rows and writes the JSON with orjson in about 21.
--
-- Provenance: each value column has a `*_seq` beside it, written by the apply's upsert with the
-- value (stage_and_upsert.sql): the acceptance order of the item that wrote it (migration 0016,
-- ari_item_order). The batch is that order divided back (ari_order_batch_seq).
--
-- The day rows are the hotel's whole range, one index range scan on (property_id, date): the
-- key's later columns as a condition (room_type_id = ANY(...)) make PostgreSQL 15 walk the
-- range once per listed value (24 ms instead of 2 for 30 rate plans). The caller keeps the
-- rows of the levels it answers for.

-- name: readback_levels(mapping_id, room_type_codes, rate_plan_codes)
-- The caller's room types of the hotel, each with the caller's rate plans selling it (none:
-- one row with NULL plan), in the answer's order.
SELECT prt.room_type_id, prt.room_type_code, p.rate_plan_id, p.rate_plan_code, p.currency
  FROM partner_room_types prt
  LEFT JOIN LATERAL (
        SELECT prp.rate_plan_id, prp.rate_plan_code, rp.currency
          FROM rate_plan_room_types rprt
          JOIN partner_rate_plans prp
            ON prp.rate_plan_id = rprt.rate_plan_id AND prp.mapping_id = :mapping_id
          JOIN rate_plans rp ON rp.id = prp.rate_plan_id
         WHERE rprt.room_type_id = prt.room_type_id
           AND (:rate_plan_codes::text[] IS NULL
                OR prp.rate_plan_code = ANY(:rate_plan_codes::text[]))) AS p ON true
 WHERE prt.mapping_id = :mapping_id
   AND (:room_type_codes::text[] IS NULL OR prt.room_type_code = ANY(:room_type_codes::text[]))
 ORDER BY prt.room_type_code, p.rate_plan_code;

-- name: readback_room_days(property_id, first_date, last_date)
-- `day`: the date as days after first_date. `batches`: per value, in the values' order, the seq
-- of the batch that wrote it (empty for none), comma-separated; NULL when no batch wrote any.
-- A year of a hotel's pushes holds few distinct such lists, so the caller works out each
-- set_by once per list, and a row no batch wrote costs nothing.
SELECT room_type_id, date - :first_date::date AS day, available, closed, min_stay, max_stay,
       closed_to_arrival, closed_to_departure,
       CASE WHEN num_nonnulls(available_seq, closed_seq, min_stay_seq, max_stay_seq,
                              closed_to_arrival_seq, closed_to_departure_seq) > 0
            THEN concat(CASE WHEN available IS NOT NULL
                             THEN ari_order_batch_seq(available_seq) END, ',',
                        CASE WHEN closed IS NOT NULL THEN ari_order_batch_seq(closed_seq) END, ',',
                        CASE WHEN min_stay IS NOT NULL
                             THEN ari_order_batch_seq(min_stay_seq) END, ',',
                        CASE WHEN max_stay IS NOT NULL
                             THEN ari_order_batch_seq(max_stay_seq) END, ',',
                        CASE WHEN closed_to_arrival IS NOT NULL
                             THEN ari_order_batch_seq(closed_to_arrival_seq) END, ',',
                        CASE WHEN closed_to_departure IS NOT NULL
                             THEN ari_order_batch_seq(closed_to_departure_seq) END) END AS batches
  FROM room_type_days
 WHERE property_id = :property_id AND date BETWEEN :first_date AND :last_date;

-- name: readback_plan_days(property_id, first_date, last_date)
-- As readback_room_days; amounts as their exact decimal text (written into the JSON as is).
SELECT room_type_id, rate_plan_id, date - :first_date::date AS day, rate::text,
       single_rate::text, extra_adult_rate::text, extra_child_rate::text, closed, min_stay,
       max_stay, closed_to_arrival, closed_to_departure,
       CASE WHEN num_nonnulls(rate_seq, single_rate_seq, extra_adult_rate_seq,
                              extra_child_rate_seq, closed_seq, min_stay_seq, max_stay_seq,
                              closed_to_arrival_seq, closed_to_departure_seq) > 0
            THEN concat(CASE WHEN rate IS NOT NULL THEN ari_order_batch_seq(rate_seq) END, ',',
                        CASE WHEN single_rate IS NOT NULL
                             THEN ari_order_batch_seq(single_rate_seq) END, ',',
                        CASE WHEN extra_adult_rate IS NOT NULL
                             THEN ari_order_batch_seq(extra_adult_rate_seq) END, ',',
                        CASE WHEN extra_child_rate IS NOT NULL
                             THEN ari_order_batch_seq(extra_child_rate_seq) END, ',',
                        CASE WHEN closed IS NOT NULL THEN ari_order_batch_seq(closed_seq) END, ',',
                        CASE WHEN min_stay IS NOT NULL
                             THEN ari_order_batch_seq(min_stay_seq) END, ',',
                        CASE WHEN max_stay IS NOT NULL
                             THEN ari_order_batch_seq(max_stay_seq) END, ',',
                        CASE WHEN closed_to_arrival IS NOT NULL
                             THEN ari_order_batch_seq(closed_to_arrival_seq) END, ',',
                        CASE WHEN closed_to_departure IS NOT NULL
                             THEN ari_order_batch_seq(closed_to_departure_seq) END) END AS batches
  FROM rate_plan_days
 WHERE property_id = :property_id AND date BETWEEN :first_date AND :last_date;

-- name: readback_rooms_sold(property_id, first_date, last_date)
-- Rooms per (room type, night) held by confirmed pull bookings and by the unreleased nights of
-- pushed reservations (a cancel or a modify releases them), every partner together. A pushed
-- reservation counts every room it sold, also those inventory could not cover (the shortfall
-- is in reconciliation). Only nights with rooms held.
SELECT room_type_id, date - :first_date::date AS day, sum(rooms)::integer AS rooms_sold
  FROM (SELECT b.room_type_id, d::date AS date, b.rooms
          FROM bookings b,
               generate_series(greatest(b.check_in, :first_date::date),
                               least(b.check_out - 1, :last_date::date),
                               interval '1 day') AS d
         WHERE b.property_id = :property_id AND b.status = 'confirmed'
           AND b.check_out > :first_date::date AND b.check_in <= :last_date::date
        UNION ALL
        SELECT n.room_type_id, n.date, n.wanted
          FROM reservation_nights n
         WHERE n.property_id = :property_id AND n.released_at IS NULL
           AND n.date BETWEEN :first_date AND :last_date) AS held
 GROUP BY room_type_id, date;

-- name: readback_batch_names(property_id, partner_id, environment, seqs)
-- Batch seq -> what set_by shows: its id to its own partner, else "other_partner". Asked for
-- the distinct batches the rows name (by the hotel's (property_id, seq) index), not for every
-- batch the hotel ever had.
SELECT b.seq,
       CASE WHEN b.partner_id = :partner_id AND b.environment = :environment
            THEN b.id ELSE 'other_partner' END AS name
  FROM ari_batches b
 WHERE b.property_id = :property_id AND b.seq = ANY(:seqs::bigint[]);
