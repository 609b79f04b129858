-- `flask --app app keys reencrypt` (connectivity/operator/key_rotation.py): the keys' signing
-- secrets, the webhook endpoints' secrets and the confirmation numbers' key sealed again under
-- the current SECRET_KEY, a batch per transaction.

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
-- Keys, webhook endpoints and the confirmation key still sealed under another key: 0 before a
-- previous key may be dropped.
SELECT (SELECT count(*) FROM api_keys WHERE signing_secret_key_id IS DISTINCT FROM :sealed_by)
     + (SELECT count(*) FROM webhook_endpoints WHERE secret_key_id <> :sealed_by)
     + (SELECT count(*) FROM confirmation_key WHERE sealed_by <> :sealed_by);

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

-- name: confirmation_key_sealed_otherwise(sealed_by, after_id, batch_size)
-- As keys_sealed_otherwise, for the one row of the confirmation numbers' key (migration 0038):
-- its id is its table's name.
SELECT 'confirmation_key' AS id, sealed
  FROM confirmation_key
 WHERE sealed_by <> :sealed_by AND 'confirmation_key' > :after_id
 LIMIT :batch_size;

-- name: reseal_confirmation_key(id, sealed_before, sealed, sealed_by)^
-- The key inside is the same: every number stays as it would have been.
UPDATE confirmation_key
   SET sealed = :sealed, sealed_by = :sealed_by
 WHERE :id = 'confirmation_key' AND sealed = :sealed_before
RETURNING 'confirmation_key' AS id;
