-- Demo ARI for sandbox properties (`flask --app app catalog demo-ari`, run by `make run`), so a
-- fresh sandbox sells at once. Written only where nothing is stored yet (ON CONFLICT DO
-- NOTHING): a restart fills the dates that entered the window and never overwrites what a
-- partner pushed or what bookings took. The values carry no batch seq, so any push replaces them.
-- Day offsets from the property's own today pick a few closed dates (40, 41), a minimum-stay
-- week (90-96) and a closed-to-arrival day (60), far enough out that a stay next week sells.

-- name: seed_demo_room_type_days(now, days, property_codes)$
WITH inserted AS (
    INSERT INTO room_type_days AS t (property_id, date, room_type_id, available, closed)
    SELECT pr.id, d.day::date, rt.id,
           -- More rooms of the smaller types, as a hotel has: enough to book and cancel at will.
           3 + rt.max_occupancy,
           d.offset_day IN (40, 41)
      FROM properties pr
      JOIN room_types rt ON rt.property_id = pr.id
     CROSS JOIN LATERAL (
           SELECT g.day, (g.day::date - (:now AT TIME ZONE pr.timezone)::date) AS offset_day
             FROM generate_series((:now AT TIME ZONE pr.timezone)::date,
                                  (:now AT TIME ZONE pr.timezone)::date + (:days - 1),
                                  interval '1 day') AS g(day)) d
     WHERE pr.environment = 'sandbox'
       AND (cardinality(:property_codes::text[]) = 0 OR pr.code = ANY(:property_codes::text[]))
     ORDER BY pr.id, d.day, rt.id
    ON CONFLICT (property_id, date, room_type_id) DO NOTHING
    RETURNING 1
)
SELECT count(*) FROM inserted;

-- name: seed_demo_rate_plan_days(now, days, property_codes)$
-- A room type's price grows with its size; Friday and Saturday nights cost 20% more and a
-- non-refundable plan 15% less, so search and rates show different totals per stay.
WITH inserted AS (
    INSERT INTO rate_plan_days AS t (property_id, date, room_type_id, rate_plan_id, rate,
                                     single_rate, extra_adult_rate, extra_child_rate, closed,
                                     min_stay, closed_to_arrival)
    SELECT pr.id, d.day::date, rt.id, rp.id,
           round(price.base, 2),
           round(price.base * 0.8, 2),
           round(price.base * 0.25, 2),
           round(price.base * 0.15, 2),
           false,
           CASE WHEN d.offset_day BETWEEN 90 AND 96 THEN 2 END,
           d.offset_day = 60
      FROM properties pr
      JOIN rate_plans rp ON rp.property_id = pr.id
      JOIN rate_plan_room_types s ON s.rate_plan_id = rp.id
      JOIN room_types rt ON rt.id = s.room_type_id
     CROSS JOIN LATERAL (
           SELECT g.day, (g.day::date - (:now AT TIME ZONE pr.timezone)::date) AS offset_day
             FROM generate_series((:now AT TIME ZONE pr.timezone)::date,
                                  (:now AT TIME ZONE pr.timezone)::date + (:days - 1),
                                  interval '1 day') AS g(day)) d
     CROSS JOIN LATERAL (
           SELECT (50 + 25 * rt.max_occupancy)
                  * CASE WHEN extract(isodow FROM d.day) IN (5, 6) THEN 1.2 ELSE 1 END
                  * CASE WHEN (rp.cancellation_policy->>'non_refundable')::boolean
                         THEN 0.85 ELSE 1 END AS base) price
     WHERE pr.environment = 'sandbox'
       AND (cardinality(:property_codes::text[]) = 0 OR pr.code = ANY(:property_codes::text[]))
     ORDER BY pr.id, d.day, rt.id, rp.id
    ON CONFLICT (property_id, date, room_type_id, rate_plan_id) DO NOTHING
    RETURNING 1
)
SELECT count(*) FROM inserted;
