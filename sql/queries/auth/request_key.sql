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
