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

-- name: find_reservation_claim(partner_id, environment, partner_reference)^
-- Where a reference's reservation lives, once any delivery of it was stored.
SELECT property_id, reservation_id FROM reservation_claims
 WHERE partner_id = :partner_id AND environment = :environment
   AND partner_reference = :partner_reference;

-- name: claim_reservation(partner_id, environment, partner_reference, property_id)^
-- The first delivery of a reference, whatever its kind, claims it here and creates the
-- reservation row (insert_reservation) in the same transaction; a concurrent first delivery
-- waits on the primary key, then inserts nothing and reads the winner's claim. The reservation
-- id is drawn now, from the one sequence (on the coordinator under Citus): globally unique.
INSERT INTO reservation_claims (partner_id, environment, partner_reference, property_id,
                                reservation_id)
VALUES (:partner_id, :environment, :partner_reference, :property_id,
        nextval('reservations_id_seq'))
ON CONFLICT (partner_id, environment, partner_reference) DO NOTHING
RETURNING property_id, reservation_id;

-- name: insert_reservation(property_id, reservation_id, partner_id, environment, partner_reference, status)!
INSERT INTO reservations (property_id, id, partner_id, environment, partner_reference, status)
VALUES (:property_id, :reservation_id, :partner_id, :environment, :partner_reference, :status);

-- name: lock_reservation(property_id, reservation_id)^
-- Every delivery of one reference holds this lock until it commits: they apply one at a time.
SELECT r.id, r.status, r.mapping_id, r.property_id, r.state, r.received_at, r.version,
       r.penalty_amount, r.penalty_currency, r.penalty_claim, r.penalty_claim_currency,
       pr.timezone
  FROM reservations r
  JOIN properties pr ON pr.id = r.property_id
 WHERE r.property_id = :property_id AND r.id = :reservation_id
   FOR UPDATE OF r;

-- name: latest_delivery(property_id, reservation_id, kind, payload)^
-- The latest original (not a redelivery) delivery of a kind; same_payload compares as JSON
-- values (key order, spacing and 100 vs 100.0 do not count).
SELECT version, ack_id, received_at, payload, payload = :payload::jsonb AS same_payload
  FROM reservation_versions
 WHERE property_id = :property_id AND reservation_id = :reservation_id AND kind = :kind AND replay_of IS NULL
 ORDER BY version DESC
 LIMIT 1;

-- name: next_version(property_id, reservation_id)$
-- Under the reservation's row lock (lock_reservation): numbering has no gaps or twins.
UPDATE reservations SET version = version + 1, updated_at = now()
 WHERE property_id = :property_id AND id = :reservation_id
RETURNING version;

-- name: record_version(property_id, reservation_id, version, kind, ack_id, replay_of, payload, request_id)^
INSERT INTO reservation_versions (property_id, reservation_id, version, kind, ack_id, replay_of,
                                  payload, request_id)
VALUES (:property_id, :reservation_id, :version, :kind, :ack_id, :replay_of, :payload::jsonb,
        :request_id)
RETURNING version, ack_id, received_at;

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
       r.penalty_claim_currency
  FROM reservations r
 WHERE r.property_id = :property_id AND r.id = :reservation_id;

-- name: partner_first_hotel(partner_id, environment)$
-- Where a cancel or modify that overtook its reservation, and names no hotel, is kept until the
-- reservation comes: the partner's first hotel of the environment, paused or not.
SELECT min(property_id) FROM partner_properties
 WHERE partner_id = :partner_id AND environment = :environment;

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
