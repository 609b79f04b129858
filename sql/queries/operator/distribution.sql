-- name: set_distribution(partner_code, property_code, active)^
UPDATE partner_properties pp
   SET distribution_active = :active, updated_at = now()
  FROM partners pa, properties pr
 WHERE pa.id = pp.partner_id AND pr.id = pp.property_id
   AND pa.code = :partner_code AND pr.code = :property_code
RETURNING pp.hotel_code, pp.distribution_active;
