-- `flask --app app keys reencrypt` (connectivity/operator/key_rotation.py): the keys' signing
-- secrets sealed again under the current SECRET_KEY, a batch per transaction.

-- name: keys_sealed_otherwise(sealed_by, after_key_id, batch_size)
-- The next batch of keys a key other than `sealed_by` sealed (or an unrecorded one), in key_id
-- order after `after_key_id`: a run walks the table once, whatever it cannot open.
SELECT key_id, signing_secret
  FROM api_keys
 WHERE signing_secret_key_id IS DISTINCT FROM :sealed_by
   AND key_id > :after_key_id
 ORDER BY key_id
 LIMIT :batch_size;

-- name: reseal_signing_secret(key_id, sealed_before, sealed, sealed_by)^
-- Only over the ciphertext that was read: a row changed since (issued again, resealed by a
-- concurrent run) is left as it now is. The secret itself, and so every signature, is the same.
UPDATE api_keys
   SET signing_secret = :sealed, signing_secret_key_id = :sealed_by
 WHERE key_id = :key_id AND signing_secret = :sealed_before
RETURNING key_id;

-- name: count_sealed_otherwise(sealed_by)$
-- Keys still sealed under another key: 0 before a previous key may be dropped.
SELECT count(*) FROM api_keys WHERE signing_secret_key_id IS DISTINCT FROM :sealed_by;
