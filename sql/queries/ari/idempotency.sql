-- The Idempotency-Key of PUT /ari and PUT /ari/restrictions (contract 12.4;
-- connectivity/ari/idempotency.py), taken in the transaction that stores the batch.

-- name: lock_idempotency_key(partner_id, environment, idempotency_key)$
-- Taken first: the transactions of one partner's key run one at a time, so a key reused at once
-- for two hotels (two shards, where the primary key cannot see both) stores one batch, and the
-- other finds it. Held to the end of the transaction. Two-key form, apart from the hotels'.
SELECT pg_advisory_xact_lock(hashtext('connectivity.ari_idempotency_key'),
                             hashtext(CAST(:partner_id AS text) || ' ' || :environment
                                      || ' ' || :idempotency_key)) IS NULL AS locked;

-- name: find_idempotency_key(partner_id, environment, idempotency_key)^
-- The key's earlier use, whatever its hotel (on Citus a look at each shard's index).
SELECT batch_id, request_hash, item_count
  FROM ari_idempotency_keys
 WHERE partner_id = :partner_id AND environment = :environment
   AND idempotency_key = :idempotency_key;

-- name: claim_idempotency_key(property_id, partner_id, environment, idempotency_key, request_hash, batch_id, item_count)^
-- Inserted after the batch it names, on the batch's shard. No row back: the key was taken for
-- this hotel by a transaction that committed meanwhile (the primary key decides), and
-- find_idempotency_key then reads it.
INSERT INTO ari_idempotency_keys (property_id, partner_id, environment, idempotency_key,
                                  request_hash, batch_id, item_count)
VALUES (:property_id, :partner_id, :environment, :idempotency_key, :request_hash, :batch_id,
        :item_count)
ON CONFLICT (property_id, partner_id, environment, idempotency_key) DO NOTHING
RETURNING batch_id;

-- name: prune_idempotency_keys(retention_hours, max_count)
-- Forgets up to max_count keys used more than retention_hours ago, oldest first.
-- (As prune_batch_items: picked without locking, across every hotel's shard.)
DELETE FROM ari_idempotency_keys
 WHERE (property_id, partner_id, environment, idempotency_key) IN (
        SELECT property_id, partner_id, environment, idempotency_key
          FROM ari_idempotency_keys
         WHERE created_at < now() - make_interval(hours => :retention_hours)
         ORDER BY created_at
         LIMIT :max_count)
RETURNING batch_id;
