-- name: paused_hotel_codes(partner_id, environment, hotel_codes)
-- Which of the searched codes the caller maps in the key's environment but has paused
-- (distribution_active false): search names them in `paused_hotel_codes` rather than in
-- `unknown_hotel_codes`, so a partner tells a pause from a typo. Run only for the codes
-- search_hotels did not answer; find_hotel's rule, by code.
SELECT pp.hotel_code
  FROM partner_properties pp
 WHERE pp.partner_id = :partner_id AND pp.environment = :environment
   AND pp.hotel_code = ANY(:hotel_codes::text[]) AND NOT pp.distribution_active;
