-- The webhooks' state read at scrape time for /metrics (connectivity/metrics/webhooks.py),
-- each through an index of migration 0021.

-- name: recent_webhook_deliveries(window_seconds)
-- Deliveries attempted in the window, by their status now: delivered, pending (to be retried,
-- or in flight) or failed. Through webhook_deliveries_attempted_idx.
SELECT status, count(*) AS deliveries
  FROM webhook_deliveries
 WHERE last_attempt_at >= clock_timestamp() - make_interval(secs => :window_seconds)
 GROUP BY status;

-- name: pending_webhook_deliveries()
-- Per endpoint with pending deliveries: how many, and the age of the oldest (since it was
-- created from its event). Through the partial index of pending deliveries.
SELECT d.endpoint_id, pa.code AS partner, count(*) AS deliveries,
       extract(epoch FROM clock_timestamp() - min(d.created_at))::float8 AS oldest_age_seconds
  FROM webhook_deliveries d
  JOIN partners pa ON pa.id = d.partner_id
 WHERE d.status = 'pending'
 GROUP BY d.endpoint_id, pa.code;

-- name: webhook_endpoints_by_status()
SELECT status, count(*) AS endpoints
  FROM webhook_endpoints
 WHERE status <> 'deleted'
 GROUP BY status;
