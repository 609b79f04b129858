-- The deliveries' retention (`flask --app app webhooks prune`, connectivity/webhooks/retention.py).

-- name: prune_webhook_deliveries(retention_days, max_count)
-- Deletes up to max_count delivered or failed deliveries created more than retention_days ago,
-- oldest first; pending ones stay whatever their age. Through webhook_deliveries_created_idx.
WITH old AS (
    DELETE FROM webhook_deliveries d
     USING (SELECT partner_id, endpoint_id, event_id
              FROM webhook_deliveries
             WHERE created_at < now() - make_interval(days => :retention_days)
               AND status <> 'pending'
             ORDER BY created_at
             LIMIT :max_count) AS o
     WHERE d.partner_id = o.partner_id AND d.endpoint_id = o.endpoint_id
       AND d.event_id = o.event_id
    RETURNING 1
)
SELECT count(*) AS pruned FROM old;
