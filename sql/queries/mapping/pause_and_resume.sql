-- `flask --app app distribution pause|resume`: one partner's mapping of one property, and the
-- change the feed shows that partner.

-- name: find_mappings_named(partner_code, code)
-- The partner's mappings an operator's code names: the property's internal code or the
-- partner's hotel code (in either environment). More than one row: the code is ambiguous.
SELECT pp.id AS mapping_id, pr.code AS property_code, pp.hotel_code, pp.environment
  FROM partner_properties pp
  JOIN partners pa ON pa.id = pp.partner_id
  JOIN properties pr ON pr.id = pp.property_id
 WHERE pa.code = :partner_code AND (pr.code = :code OR pp.hotel_code = :code)
 ORDER BY pr.code, pp.environment;

-- name: set_distribution(mapping_id, active)^
-- `changed`: the state was the other one before (the change feed and the event log then
-- record it).
UPDATE partner_properties pp
   SET distribution_active = :active, updated_at = now()
  FROM properties pr, partner_properties before
 WHERE pr.id = pp.property_id AND before.id = pp.id AND pp.id = :mapping_id
RETURNING pp.hotel_code, pr.code AS property_code, pp.distribution_active, pp.partner_id,
          pp.property_id, pp.environment, before.distribution_active IS DISTINCT FROM pp.distribution_active
          AS changed;

-- name: record_distribution_change(property_id, partner_id)!
-- A pause or resume of one partner's mapping: only that partner sees it.
INSERT INTO change_log (property_id, partner_id, kinds)
VALUES (:property_id, :partner_id, ARRAY['distribution']);
