-- GET /bookings (contract 12.1; connectivity/bookings/listing.py).

-- name: list_bookings(partner_id, environment, property_id, status, created_from, created_to, check_in_from, check_in_to, after_created_at, after_id, page_size)
-- Up to page_size + 1 of the caller's bookings in its environment, oldest created first, after
-- the (created_at, id) a cursor carries; each filter applies when given. property_id: the
-- caller's mapping of the hotel code asked for (paused or not).
SELECT b.*
  FROM bookings b
 WHERE b.partner_id = :partner_id AND b.environment = :environment
   AND (:property_id::bigint IS NULL OR b.property_id = :property_id::bigint)
   AND (:status::text IS NULL OR b.status = :status::text)
   AND (:created_from::timestamptz IS NULL OR b.created_at >= :created_from::timestamptz)
   AND (:created_to::timestamptz IS NULL OR b.created_at <= :created_to::timestamptz)
   AND (:check_in_from::date IS NULL OR b.check_in >= :check_in_from::date)
   AND (:check_in_to::date IS NULL OR b.check_in <= :check_in_to::date)
   AND (:after_created_at::timestamptz IS NULL
        OR (b.created_at, b.id) > (:after_created_at::timestamptz, :after_id::bigint))
 ORDER BY b.created_at, b.id
 LIMIT :page_size + 1;
