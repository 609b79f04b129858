-- The caller's hotel by its hotel code: the one lookup every area makes
-- (connectivity/mapping/hotel_code.py), for selling (mapping, rates, quote, booking) as for
-- pushing (ARI, reservations) and reading back ARI.

-- name: find_hotel(partner_id, environment, hotel_code)^
-- The partner's mapping of the code in the key's environment, with what the callers need of its
-- property; one row at most (UNIQUE (partner_id, environment, hotel_code)). Active or paused:
-- whether a paused mapping counts is the caller's rule, read from distribution_active (a pause
-- stops selling, not pushing, contract 8). Search applies the same rule to up to 200 codes
-- inside its own statement (availability/search.sql, the `hotel` CTE).
SELECT pp.id AS mapping_id, pp.property_id, pp.hotel_code, pp.distribution_active,
       pp.receives_bookings,
       pr.name, pr.country, pr.currency, pr.timezone, pr.max_child_age
  FROM partner_properties pp
  JOIN properties pr ON pr.id = pp.property_id
 WHERE pp.partner_id = :partner_id AND pp.environment = :environment
   AND pp.hotel_code = :hotel_code;
