-- `flask --app app keys reencrypt` (connectivity/operator/key_rotation.py): the keys' signing
-- secrets and the webhook endpoints' secrets sealed again under the current SECRET_KEY, a batch
-- per transaction.

-- name: keys_sealed_otherwise(sealed_by, after_id, batch_size)
-- The next batch of keys a key other than `sealed_by` sealed (or an unrecorded one), in key_id
-- order after `after_id`: a run walks the table once, whatever it cannot open.
SELECT key_id AS id, signing_secret AS sealed
  FROM api_keys
 WHERE signing_secret_key_id IS DISTINCT FROM :sealed_by
   AND key_id > :after_id
 ORDER BY key_id
 LIMIT :batch_size;

-- name: reseal_signing_secret(id, sealed_before, sealed, sealed_by)^
-- Only over the ciphertext that was read: a row changed since (issued again, resealed by a
-- concurrent run) is left as it now is. The secret itself, and so every signature, is the same.
UPDATE api_keys
   SET signing_secret = :sealed, signing_secret_key_id = :sealed_by
 WHERE key_id = :id AND signing_secret = :sealed_before
RETURNING key_id;

-- name: count_sealed_otherwise(sealed_by)$
-- Keys and webhook endpoints still sealed under another key: 0 before a previous key may be
-- dropped.
SELECT (SELECT count(*) FROM api_keys WHERE signing_secret_key_id IS DISTINCT FROM :sealed_by)
     + (SELECT count(*) FROM webhook_endpoints WHERE secret_key_id <> :sealed_by);

-- name: webhook_secrets_sealed_otherwise(sealed_by, after_id, batch_size)
-- As keys_sealed_otherwise, for the webhook endpoints (deleted ones too: nothing reads them,
-- but no ciphertext is left under a key being dropped).
SELECT id, secret_sealed AS sealed
  FROM webhook_endpoints
 WHERE secret_key_id <> :sealed_by AND id > :after_id
 ORDER BY id
 LIMIT :batch_size;

-- name: reseal_webhook_secret(id, sealed_before, sealed, sealed_by)^
UPDATE webhook_endpoints
   SET secret_sealed = :sealed, secret_key_id = :sealed_by
 WHERE id = :id AND secret_sealed = :sealed_before
RETURNING id;
