-- 0017_signing_secret_key_id: which SECRET_KEY sealed each key's signing secret
-- (`api_keys.signing_secret_key_id`, the fingerprint auth/credentials.py `key_fingerprint`
-- derives), so that `flask --app app keys reencrypt` reseals only what an older key sealed and
-- can run again (docs/operations.md, "Rotating SECRET_KEY"). NULL: sealed before this column
-- existed, by whichever key was current then; re-encrypting fills it.
-- Locks: ADD COLUMN (nullable, no default: catalogue-only) takes ACCESS EXCLUSIVE on api_keys
-- for an instant; no row is rewritten.

ALTER TABLE api_keys ADD COLUMN signing_secret_key_id text
    CHECK (signing_secret_key_id ~ '^[0-9a-f]{16}$');
