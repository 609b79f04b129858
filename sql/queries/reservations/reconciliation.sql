-- name: record_reconciliation*!
-- One row per item, as VALUES: routed to the reservation's shard under Citus.
INSERT INTO reconciliation_items (property_id, reservation_id, version, code, message, details)
VALUES (:property_id, :reservation_id, :version, :code, :message, :details);

-- name: reconciliation_of_version(property_id, reservation_id, version)
SELECT code, message FROM reconciliation_items
 WHERE property_id = :property_id AND reservation_id = :reservation_id AND version = :version
 ORDER BY id;

-- name: list_reconciliation(partner_code, unresolved_only)
SELECT ri.id, pa.code AS partner_code, r.environment, r.partner_reference AS reference,
       ri.code, ri.message, ri.details, ri.created_at, ri.resolved_at
  FROM reconciliation_items ri
  JOIN reservations r ON r.property_id = ri.property_id AND r.id = ri.reservation_id
  JOIN partners pa ON pa.id = r.partner_id
 WHERE (:partner_code::text IS NULL OR pa.code = :partner_code::text)
   AND (NOT :unresolved_only::boolean OR ri.resolved_at IS NULL)
 ORDER BY ri.id;

-- name: resolve_reconciliation(item_id)^
UPDATE reconciliation_items SET resolved_at = now()
 WHERE id = :item_id AND resolved_at IS NULL
RETURNING id, resolved_at;

-- name: find_reconciliation(item_id)^
SELECT id, resolved_at FROM reconciliation_items WHERE id = :item_id;

-- name: mapping_hotel_code(mapping_id)$
-- The partner's hotel code of a mapping, for the reservation.flagged event.
SELECT hotel_code FROM partner_properties WHERE id = :mapping_id;
