-- name: find_hotel_for_push(partner_id, environment, hotel_code)^
-- The caller's mapping of a hotel, paused or not: a pause stops selling, not pushing
-- (contract 8).
SELECT pp.id AS mapping_id, pp.property_id, pp.hotel_code, pr.timezone
  FROM partner_properties pp
  JOIN properties pr ON pr.id = pp.property_id
 WHERE pp.partner_id = :partner_id AND pp.environment = :environment
   AND pp.hotel_code = :hotel_code;

-- name: mapped_room_types_for_push(mapping_id)
SELECT room_type_code, room_type_id FROM partner_room_types WHERE mapping_id = :mapping_id;

-- name: mapped_rate_plan_codes_for_push(mapping_id)
SELECT rate_plan_code FROM partner_rate_plans WHERE mapping_id = :mapping_id;

-- name: claim_reservation(partner_id, environment, partner_reference, status)^
-- The first delivery of a reference, whatever its kind, creates the row; a concurrent one waits
-- on the unique index and then inserts nothing (and reads the row with lock_reservation).
INSERT INTO reservations (partner_id, environment, partner_reference, status)
VALUES (:partner_id, :environment, :partner_reference, :status)
ON CONFLICT (partner_id, environment, partner_reference) DO NOTHING
RETURNING id;

-- name: lock_reservation(partner_id, environment, partner_reference)^
-- Every delivery of one reference holds this lock until it commits: they apply one at a time.
SELECT r.id, r.status, r.mapping_id, r.property_id, r.state, r.received_at, r.version,
       r.penalty_amount, r.penalty_currency, r.penalty_claim, r.penalty_claim_currency,
       pr.timezone
  FROM reservations r
  LEFT JOIN properties pr ON pr.id = r.property_id
 WHERE r.partner_id = :partner_id AND r.environment = :environment
   AND r.partner_reference = :partner_reference
   FOR UPDATE OF r;

-- name: latest_delivery(reservation_id, kind, payload)^
-- The latest original (not a redelivery) delivery of a kind; same_payload compares as JSON
-- values (key order, spacing and 100 vs 100.0 do not count).
SELECT version, ack_id, received_at, payload, payload = :payload::jsonb AS same_payload
  FROM reservation_versions
 WHERE reservation_id = :reservation_id AND kind = :kind AND replay_of IS NULL
 ORDER BY version DESC
 LIMIT 1;

-- name: record_version(reservation_id, kind, ack_id, replay_of, payload, request_id)^
WITH bumped AS (
    UPDATE reservations SET version = version + 1, updated_at = now()
     WHERE id = :reservation_id
    RETURNING id, version
)
INSERT INTO reservation_versions (reservation_id, version, kind, ack_id, replay_of, payload,
                                  request_id)
SELECT id, version, :kind, :ack_id, :replay_of, :payload::jsonb, :request_id FROM bumped
RETURNING version, ack_id, received_at;

-- name: receive_reservation(reservation_id, mapping_id, property_id, state, status)^
UPDATE reservations
   SET mapping_id = :mapping_id, property_id = :property_id, state = :state::jsonb,
       status = :status, received_at = now(), updated_at = now()
 WHERE id = :reservation_id AND mapping_id IS NULL
RETURNING id;

-- name: change_reservation(reservation_id, state, status)^
UPDATE reservations
   SET state = coalesce(:state::jsonb, state), status = :status, updated_at = now()
 WHERE id = :reservation_id
RETURNING id;

-- name: cancel_reservation(reservation_id, penalty_amount, penalty_currency, penalty_claim, penalty_claim_currency)^
UPDATE reservations
   SET status = 'cancelled', penalty_amount = :penalty_amount,
       penalty_currency = :penalty_currency, penalty_claim = :penalty_claim,
       penalty_claim_currency = :penalty_claim_currency, updated_at = now()
 WHERE id = :reservation_id
RETURNING id;

-- name: reservation_view(reservation_id)^
SELECT r.partner_reference, r.status, r.state, r.received_at, r.version, r.created_at,
       r.updated_at, r.penalty_amount, r.penalty_currency, r.penalty_claim,
       r.penalty_claim_currency
  FROM reservations r
 WHERE r.id = :reservation_id;
