-- name: upsert_property(code, name, environment, country, timezone, currency, max_child_age)^
-- A property never changes environment: sandbox bookings must not become production ones. The
-- WHERE makes such a reload return no row, which the loader reports.
INSERT INTO properties (code, name, environment, country, timezone, currency, max_child_age)
VALUES (:code, :name, :environment, :country, :timezone, :currency, :max_child_age)
ON CONFLICT (code) DO UPDATE
   SET name = EXCLUDED.name, country = EXCLUDED.country, timezone = EXCLUDED.timezone,
       currency = EXCLUDED.currency, max_child_age = EXCLUDED.max_child_age, updated_at = EXCLUDED.updated_at
 WHERE properties.environment = EXCLUDED.environment
RETURNING id;

-- name: upsert_room_types(property_id, codes, names, max_occupancies)!
INSERT INTO room_types (property_id, code, name, max_occupancy)
SELECT :property_id, t.code, t.name, t.max_occupancy
  FROM unnest(:codes::text[], :names::text[], :max_occupancies::int[]) AS t(code, name, max_occupancy)
ON CONFLICT (property_id, code) DO UPDATE
   SET name = EXCLUDED.name, max_occupancy = EXCLUDED.max_occupancy;

-- name: room_type_ids(property_id)
SELECT id, code FROM room_types WHERE property_id = :property_id;

-- name: upsert_rate_plan(property_id, code, name, board_type, currency, base_adults, max_adults, max_children, max_occupancy, allowed_nationalities, blocked_nationalities, cancellation_policy)^
INSERT INTO rate_plans (property_id, code, name, board_type, currency, base_adults, max_adults,
                        max_children, max_occupancy, allowed_nationalities,
                        blocked_nationalities, cancellation_policy)
VALUES (:property_id, :code, :name, :board_type, :currency, :base_adults, :max_adults,
        :max_children, :max_occupancy, :allowed_nationalities, :blocked_nationalities,
        :cancellation_policy)
ON CONFLICT (property_id, code) DO UPDATE
   SET name = EXCLUDED.name, board_type = EXCLUDED.board_type, currency = EXCLUDED.currency,
       base_adults = EXCLUDED.base_adults, max_adults = EXCLUDED.max_adults,
       max_children = EXCLUDED.max_children, max_occupancy = EXCLUDED.max_occupancy,
       allowed_nationalities = EXCLUDED.allowed_nationalities,
       blocked_nationalities = EXCLUDED.blocked_nationalities,
       cancellation_policy = EXCLUDED.cancellation_policy
RETURNING id;

-- name: rate_plan_ids(property_id)
SELECT id, code FROM rate_plans WHERE property_id = :property_id;

-- name: set_rate_plan_room_types(property_id, rate_plan_id, room_type_ids)!
-- The rate plan sells exactly the listed room types afterwards.
WITH dropped AS (
    DELETE FROM rate_plan_room_types
     WHERE rate_plan_id = :rate_plan_id AND NOT (room_type_id = ANY(:room_type_ids::bigint[]))
)
INSERT INTO rate_plan_room_types (property_id, rate_plan_id, room_type_id)
SELECT :property_id, :rate_plan_id, unnest(:room_type_ids::bigint[])
ON CONFLICT DO NOTHING;

-- name: upsert_partner(code, name)^
INSERT INTO partners (code, name) VALUES (:code, :name)
ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name, updated_at = EXCLUDED.updated_at
RETURNING id;

-- name: find_property(code)^
SELECT id, environment FROM properties WHERE code = :code;

-- name: upsert_mapping(partner_id, property_id, environment, hotel_code, active, receives_bookings)^
-- `active` is the distribution state of a new mapping only: a reload never resumes a pause.
-- `receives_bookings` is the file's at every load.
INSERT INTO partner_properties (partner_id, property_id, environment, hotel_code,
                                distribution_active, receives_bookings)
VALUES (:partner_id, :property_id, :environment, :hotel_code, :active, :receives_bookings)
ON CONFLICT (partner_id, property_id) DO UPDATE
   SET hotel_code = EXCLUDED.hotel_code, receives_bookings = EXCLUDED.receives_bookings,
       updated_at = EXCLUDED.updated_at
RETURNING id;

-- name: clear_mapping_codes(mapping_id)!
-- The mapping's codes are replaced whole by the file's, so a code dropped from the file is
-- dropped here and two codes can swap places.
WITH rt AS (DELETE FROM partner_room_types WHERE mapping_id = :mapping_id)
DELETE FROM partner_rate_plans WHERE mapping_id = :mapping_id;

-- name: insert_mapped_room_types(mapping_id, property_id, room_type_ids, codes)!
INSERT INTO partner_room_types (mapping_id, property_id, room_type_id, room_type_code)
SELECT :mapping_id, :property_id, t.id, t.code
  FROM unnest(:room_type_ids::bigint[], :codes::text[]) AS t(id, code);

-- name: insert_mapped_rate_plans(mapping_id, property_id, rate_plan_ids, codes)!
INSERT INTO partner_rate_plans (mapping_id, property_id, rate_plan_id, rate_plan_code)
SELECT :mapping_id, :property_id, t.id, t.code
  FROM unnest(:rate_plan_ids::bigint[], :codes::text[]) AS t(id, code);

-- name: upsert_fx_rate(base, quote, rate)!
INSERT INTO fx_rates (base, quote, rate) VALUES (:base, :quote, :rate)
ON CONFLICT (base, quote) DO UPDATE SET rate = EXCLUDED.rate, updated_at = EXCLUDED.updated_at;

-- name: plans_priced_without_fx()
-- Rate plans priced in another currency than their property's with no FX rate between the two:
-- their prices could not be shown in the hotel's currency, so a catalogue may not hold them.
SELECT pr.code AS property, rp.code AS rate_plan, rp.currency, pr.currency AS property_currency
  FROM rate_plans rp
  JOIN properties pr ON pr.id = rp.property_id
 WHERE rp.currency <> pr.currency
   AND NOT EXISTS (SELECT 1 FROM fx_rates f
                    WHERE (f.base = rp.currency AND f.quote = pr.currency)
                       OR (f.base = pr.currency AND f.quote = rp.currency))
 ORDER BY pr.code, rp.code;
