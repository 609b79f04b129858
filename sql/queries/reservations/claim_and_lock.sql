-- The start of every delivery of a pushed reservation (connectivity/reservations/service.py,
-- _claim): its reference claimed or found, its row locked. The hotel a delivery names is found
-- by mapping/find_hotel.sql.

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
-- No row for a committed claim: not visible yet (Citus) or moved with its orphan; the caller
-- reads the claim and this again for a bounded time (store/claimed.py).
SELECT r.id, r.status, r.mapping_id, r.property_id, r.state, r.received_at, r.version,
       r.penalty_amount, r.penalty_currency, r.penalty_claim, r.penalty_claim_currency,
       r.guest_data_purged_at, pr.timezone
  FROM reservations r
  JOIN properties pr ON pr.id = r.property_id
 WHERE r.property_id = :property_id AND r.id = :reservation_id
   FOR UPDATE OF r;

-- name: partner_first_hotel(partner_id, environment)$
-- Where a cancel or modify that overtook its reservation, and names no hotel, is kept until the
-- reservation comes: the partner's first hotel of the environment, paused or not.
SELECT min(property_id) FROM partner_properties
 WHERE partner_id = :partner_id AND environment = :environment;
