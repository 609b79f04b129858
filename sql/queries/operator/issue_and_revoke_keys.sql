-- API keys as operators issue, list and revoke them (`flask --app app keys ...`,
-- connectivity/operator/keys.py; revoke_keys_named for the local demo set-up). The read on every
-- request is auth/request_key.sql.

-- name: insert_key(key_id, partner_id, name, environment, secret_hash, signing_secret, signing_secret_key_id, scopes, requires_signature, rate_limit_per_minute, expires_at)^
INSERT INTO api_keys (key_id, partner_id, name, environment, secret_hash, signing_secret,
                      signing_secret_key_id, scopes, requires_signature, rate_limit_per_minute,
                      expires_at)
VALUES (:key_id, :partner_id, :name, :environment, :secret_hash, :signing_secret,
        :signing_secret_key_id, :scopes, :requires_signature, :rate_limit_per_minute,
        :expires_at)
RETURNING key_id, name, environment, scopes, requires_signature, rate_limit_per_minute,
          expires_at, created_at;

-- name: revoke_key(key_id)^
-- Revoking twice keeps the first revocation time. The time is read in a subquery, not in the
-- coalesce: Citus refuses any non-IMMUTABLE function inside a COALESCE of an UPDATE (api_keys is
-- a reference table there), and evaluates this now() once, on the coordinator, for every copy.
UPDATE api_keys k SET revoked_at = coalesce(k.revoked_at, r.at)
  FROM (SELECT now() AS at) AS r
 WHERE k.key_id = :key_id
RETURNING k.key_id, k.revoked_at;

-- name: list_keys_of_partner(partner_code)
SELECT k.key_id, k.name, k.environment, k.scopes, k.requires_signature,
       k.rate_limit_per_minute, k.expires_at, k.revoked_at, k.created_at
  FROM api_keys k JOIN partners p ON p.id = k.partner_id
 WHERE p.code = :partner_code
 ORDER BY k.created_at, k.key_id;

-- name: revoke_keys_named(partner_code, name)
-- Used by the local demo set-up, which issues fresh demo keys on every start.
UPDATE api_keys k SET revoked_at = now()
  FROM partners p
 WHERE p.id = k.partner_id AND p.code = :partner_code AND k.name = :name
   AND k.revoked_at IS NULL
RETURNING k.key_id;
