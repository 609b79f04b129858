-- Every delivery kept as a version of its reservation, with its acknowledgement.

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

-- name: record_version(property_id, reservation_id, version, kind, ack_id, replay_of, payload, drop_fields, request_id)^
-- `drop_fields`: the top-level fields kept out (a purged reservation's personal fields), else
-- an empty array.
INSERT INTO reservation_versions (property_id, reservation_id, version, kind, ack_id, replay_of,
                                  payload, request_id)
VALUES (:property_id, :reservation_id, :version, :kind, :ack_id, :replay_of,
        :payload::jsonb - :drop_fields::text[], :request_id)
RETURNING version, ack_id, received_at;
