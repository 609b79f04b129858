-- The partners' webhook endpoints (contract 12.3): created, listed, deleted, enabled; each
-- statement names the partner (on Citus, the endpoint's shard).

-- name: create_endpoint(partner_id, id, environment, url, event_types, subscribed_types, description, secret_sealed, secret_key_id, log_position)^
-- Takes the lowest free slot of the partner and environment (1..10). No row: no slot was free
-- in this statement's snapshot, or a creation at the same time took it (the partial unique
-- index decided); the caller looks again.
INSERT INTO webhook_endpoints (partner_id, id, environment, slot, url, event_types,
                               subscribed_types, description, secret_sealed, secret_key_id,
                               log_position)
SELECT :partner_id, :id, :environment, free.slot, :url, :event_types, :subscribed_types,
       :description, :secret_sealed, :secret_key_id, :log_position
FROM (SELECT s.slot
      FROM generate_series(1, 10) AS s(slot)
      WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoints e
                        WHERE e.partner_id = :partner_id AND e.environment = :environment
                          AND e.status <> 'deleted' AND e.slot = s.slot)
      ORDER BY s.slot
      LIMIT 1) AS free
ON CONFLICT (partner_id, environment, slot) WHERE status <> 'deleted' DO NOTHING
RETURNING id AS endpoint_id, url, event_types, description, status, created_at;

-- name: count_live_endpoints(partner_id, environment)$
SELECT count(*) FROM webhook_endpoints
WHERE partner_id = :partner_id AND environment = :environment AND status <> 'deleted';

-- name: list_endpoints(partner_id, environment, visible_types)
-- The endpoints whose types the key may all see, oldest first.
SELECT id AS endpoint_id, url, event_types, description, status, created_at
FROM webhook_endpoints
WHERE partner_id = :partner_id AND environment = :environment AND status <> 'deleted'
  AND subscribed_types <@ :visible_types::text[]
ORDER BY created_at, id;

-- name: find_endpoint(partner_id, environment, id, visible_types)^
SELECT id AS endpoint_id, url, event_types, description, status, created_at
FROM webhook_endpoints
WHERE partner_id = :partner_id AND environment = :environment AND id = :id
  AND status <> 'deleted' AND subscribed_types <@ :visible_types::text[];

-- name: delete_endpoint(partner_id, environment, id, visible_types)^
UPDATE webhook_endpoints SET status = 'deleted', deleted_at = now()
WHERE partner_id = :partner_id AND environment = :environment AND id = :id
  AND status <> 'deleted' AND subscribed_types <@ :visible_types::text[]
RETURNING id AS endpoint_id, url, event_types, description, status, created_at;

-- name: drop_pending_deliveries(partner_id, endpoint_id)!
-- A deleted endpoint gets nothing more: what waited is failed, saying why.
UPDATE webhook_deliveries
SET status = 'failed', next_attempt_at = NULL, last_error = 'the endpoint was deleted'
WHERE partner_id = :partner_id AND endpoint_id = :endpoint_id AND status = 'pending';

-- name: enable_endpoint(partner_id, environment, id, visible_types)^
-- Enabling starts the 5 days of failures afresh.
UPDATE webhook_endpoints
SET status = 'enabled', disabled_at = NULL, failing_since = NULL
WHERE partner_id = :partner_id AND environment = :environment AND id = :id
  AND status <> 'deleted' AND subscribed_types <@ :visible_types::text[]
RETURNING id AS endpoint_id, url, event_types, description, status, created_at;
