-- `flask --app app distribution pause|resume`: one partner's mapping of one property, and the
-- change the feed shows that partner.

-- name: set_distribution(partner_code, property_code, active)^
-- `changed`: the state was the other one before (the change feed and the event log then
-- record it).
UPDATE partner_properties pp
   SET distribution_active = :active, updated_at = now()
  FROM partners pa, properties pr, partner_properties before
 WHERE pa.id = pp.partner_id AND pr.id = pp.property_id AND before.id = pp.id
   AND pa.code = :partner_code AND pr.code = :property_code
RETURNING pp.hotel_code, pp.distribution_active, pp.partner_id, pp.property_id, pp.environment,
          before.distribution_active IS DISTINCT FROM pp.distribution_active AS changed;

-- name: record_distribution_change(property_id, partner_id)!
-- A pause or resume of one partner's mapping: only that partner sees it.
INSERT INTO change_log (property_id, partner_id, kinds)
VALUES (:property_id, :partner_id, ARRAY['distribution']);
