-- A reservation's state and status as its deliveries change them, and as the answer shows it.

-- name: receive_reservation(property_id, reservation_id, mapping_id, state, status)^
UPDATE reservations
   SET mapping_id = :mapping_id, state = :state::jsonb,
       status = :status, received_at = now(), updated_at = now()
 WHERE property_id = :property_id AND id = :reservation_id AND mapping_id IS NULL
RETURNING id;

-- name: change_reservation(property_id, reservation_id, state, status)^
UPDATE reservations
   SET state = coalesce(:state::jsonb, state), status = :status, updated_at = now()
 WHERE property_id = :property_id AND id = :reservation_id
RETURNING id;

-- name: cancel_reservation(property_id, reservation_id, penalty_amount, penalty_currency, penalty_claim, penalty_claim_currency)^
UPDATE reservations
   SET status = 'cancelled', penalty_amount = :penalty_amount,
       penalty_currency = :penalty_currency, penalty_claim = :penalty_claim,
       penalty_claim_currency = :penalty_claim_currency, updated_at = now()
 WHERE property_id = :property_id AND id = :reservation_id
RETURNING id;

-- name: reservation_view(property_id, reservation_id)^
SELECT r.partner_reference, r.status, r.state, r.received_at, r.version, r.created_at,
       r.updated_at, r.penalty_amount, r.penalty_currency, r.penalty_claim,
       r.penalty_claim_currency, r.guest_data_purged_at
  FROM reservations r
 WHERE r.property_id = :property_id AND r.id = :reservation_id;
