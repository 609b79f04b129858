-- GET /reservations/{reference} (contract 12.1; connectivity/reservations/record.py): the
-- reservation's versions and reconciliation items, on its shard.

-- name: reservation_versions(property_id, reservation_id)
-- The first delivery, each modify and the cancel, oldest first, numbered from 1 (redeliveries
-- repeat a version and are not one); `status`: what that delivery made the reservation.
SELECT row_number() OVER (ORDER BY v.version) AS version,
       CASE v.kind WHEN 'modify' THEN 'modified' WHEN 'cancel' THEN 'cancelled'
                   ELSE coalesce(v.payload->>'status', 'confirmed') END AS status,
       v.received_at, v.ack_id
  FROM reservation_versions v
 WHERE v.property_id = :property_id AND v.reservation_id = :reservation_id
   AND v.replay_of IS NULL
 ORDER BY v.version;

-- name: reservation_reconciliation(property_id, reservation_id)
SELECT code, message, created_at, resolved_at
  FROM reconciliation_items
 WHERE property_id = :property_id AND reservation_id = :reservation_id
 ORDER BY id;
