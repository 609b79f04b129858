-- A reservation never received (only its cancel or modify was) moves to the hotel its
-- reservation names, in one transaction (service.py, _move_orphan): its row, its versions (in
-- one statement, so a redelivery's replay_of finds its original) and its reconciliation items
-- are copied there, then removed here, and its claim follows. It holds no inventory yet
-- (reservation_nights has nothing of it). Under Citus the distribution column cannot be
-- updated in place: these statements are the copy and delete that stands for.

-- name: copy_orphan(from_property_id, to_property_id, reservation_id)!
INSERT INTO reservations (property_id, id, partner_id, environment, partner_reference, status,
                          mapping_id, state, received_at, version, penalty_amount,
                          penalty_currency, penalty_claim, penalty_claim_currency, created_at,
                          updated_at)
SELECT :to_property_id, id, partner_id, environment, partner_reference, status, mapping_id,
       state, received_at, version, penalty_amount, penalty_currency, penalty_claim,
       penalty_claim_currency, created_at, updated_at
  FROM reservations
 WHERE property_id = :from_property_id AND id = :reservation_id AND received_at IS NULL;

-- name: copy_orphan_versions(from_property_id, to_property_id, reservation_id)!
INSERT INTO reservation_versions (property_id, reservation_id, version, kind, ack_id, replay_of,
                                  payload, request_id, received_at)
SELECT :to_property_id, reservation_id, version, kind, ack_id, replay_of, payload, request_id,
       received_at
  FROM reservation_versions
 WHERE property_id = :from_property_id AND reservation_id = :reservation_id;

-- name: copy_orphan_reconciliation(from_property_id, to_property_id, reservation_id)!
INSERT INTO reconciliation_items (property_id, id, reservation_id, version, code, message,
                                  details, created_at, resolved_at)
SELECT :to_property_id, id, reservation_id, version, code, message, details, created_at,
       resolved_at
  FROM reconciliation_items
 WHERE property_id = :from_property_id AND reservation_id = :reservation_id;

-- name: drop_orphan_reconciliation(from_property_id, reservation_id)!
DELETE FROM reconciliation_items
 WHERE property_id = :from_property_id AND reservation_id = :reservation_id;

-- name: drop_orphan_versions(from_property_id, reservation_id)!
DELETE FROM reservation_versions
 WHERE property_id = :from_property_id AND reservation_id = :reservation_id;

-- name: drop_orphan(from_property_id, reservation_id)!
DELETE FROM reservations WHERE property_id = :from_property_id AND id = :reservation_id;

-- name: move_reservation_claim(partner_id, environment, partner_reference, to_property_id)!
UPDATE reservation_claims SET property_id = :to_property_id
 WHERE partner_id = :partner_id AND environment = :environment
   AND partner_reference = :partner_reference;
