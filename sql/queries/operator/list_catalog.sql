-- `flask --app app catalog list`: what is loaded, with its state, for an operator to read.

-- name: list_partners()
-- Keys counted as active: neither revoked nor expired.
SELECT pa.code, pa.name,
       count(k.key_id) FILTER (WHERE k.revoked_at IS NULL
                                 AND (k.expires_at IS NULL OR k.expires_at > now()))
           AS active_keys,
       count(k.key_id) AS keys
  FROM partners pa LEFT JOIN api_keys k ON k.partner_id = pa.id
 GROUP BY pa.id
 ORDER BY pa.code;

-- name: list_properties()
SELECT pr.code, pr.name, pr.environment, pr.country, pr.timezone, pr.currency,
       (SELECT count(*) FROM room_types rt WHERE rt.property_id = pr.id) AS room_types,
       (SELECT count(*) FROM rate_plans rp WHERE rp.property_id = pr.id) AS rate_plans
  FROM properties pr
 ORDER BY pr.code;

-- name: list_mappings()
-- `state`: active (sold to the partner) or paused (`distribution pause`); `receives_bookings`:
-- the partner receives the hotel's bookings as hotel_booking.* events (the catalogue file's).
SELECT pa.code AS partner_code, pr.code AS property_code, pp.hotel_code, pp.environment,
       CASE WHEN pp.distribution_active THEN 'active' ELSE 'paused' END AS state,
       pp.receives_bookings,
       (SELECT count(*) FROM partner_room_types m WHERE m.mapping_id = pp.id) AS room_types,
       (SELECT count(*) FROM partner_rate_plans m WHERE m.mapping_id = pp.id) AS rate_plans
  FROM partner_properties pp
  JOIN partners pa ON pa.id = pp.partner_id
  JOIN properties pr ON pr.id = pp.property_id
 ORDER BY pa.code, pr.code;
