-- name: find_key_for_request(key_id)^
-- Everything one request's authentication and access checks need, in one round trip; it runs on
-- every request, so it reads index entries, never a list. Whether the partner has a mapped
-- property in the key's environment (paused ones included, contract 10) is an EXISTS: the
-- first index entry answers it, where a count reads all of a large partner's mappings.
SELECT k.key_id, k.name, k.environment, k.secret_hash, k.signing_secret, k.scopes,
       k.requires_signature, k.rate_limit_per_minute, k.expires_at, k.revoked_at,
       p.id AS partner_id, p.code AS partner_code, p.name AS partner_name,
       EXISTS (SELECT 1 FROM partner_properties pp
                WHERE pp.partner_id = p.id AND pp.environment = k.environment)
         AS has_mapped_properties
  FROM api_keys k
  JOIN partners p ON p.id = k.partner_id
 WHERE k.key_id = :key_id;

-- name: count_mapped_properties(partner_id, environment)$
-- The number /whoami reports: the partner's mapped properties in one environment, paused ones
-- included (contract 10).
SELECT count(*) FROM partner_properties
 WHERE partner_id = :partner_id AND environment = :environment;

-- name: insert_key(key_id, partner_id, name, environment, secret_hash, signing_secret, scopes, requires_signature, rate_limit_per_minute, expires_at)^
INSERT INTO api_keys (key_id, partner_id, name, environment, secret_hash, signing_secret, scopes,
                      requires_signature, rate_limit_per_minute, expires_at)
VALUES (:key_id, :partner_id, :name, :environment, :secret_hash, :signing_secret, :scopes,
        :requires_signature, :rate_limit_per_minute, :expires_at)
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
