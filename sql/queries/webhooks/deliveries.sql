-- Webhook deliveries: created by the dispatcher from the event log (or by a ping), claimed by
-- the senders when due (a lease, `leased_until`, and a numbered claim, `claim`), their outcome
-- recorded by the latest claim's holder.

-- name: list_deliveries(partner_id, endpoint_id, status, before_seq, max_count)
-- Newest first; `max_count` is one more than the page, to tell whether more follow.
SELECT seq, event_id, event_type AS type, status, attempts, last_attempt_at, last_status_code,
       last_error, next_attempt_at
FROM webhook_deliveries
WHERE partner_id = :partner_id AND endpoint_id = :endpoint_id
  AND (:status::text IS NULL OR status = :status)
  AND (:before_seq::bigint IS NULL OR seq < :before_seq)
ORDER BY seq DESC
LIMIT :max_count;

-- name: replay_delivery(partner_id, endpoint_id, event_id)^
-- Due now whatever its status; `manual` lets it go even to a disabled endpoint. An attempt in
-- flight keeps its lease: the replay is sent after it (the recording keeps a replay asked
-- meanwhile due), never beside it.
UPDATE webhook_deliveries
SET status = 'pending', next_attempt_at = now(), manual = true
WHERE partner_id = :partner_id AND endpoint_id = :endpoint_id AND event_id = :event_id
RETURNING event_id;

-- name: add_ping(partner_id, endpoint_id, event_id, body)!
INSERT INTO webhook_deliveries (partner_id, endpoint_id, event_id, event_type, body,
                                next_attempt_at, manual)
VALUES (:partner_id, :endpoint_id, :event_id, 'ping', :body, now(), true);

-- name: endpoints_to_feed()
-- Every enabled endpoint, for the dispatcher's round (a read on every shard under Citus).
SELECT partner_id, id, log_position FROM webhook_endpoints WHERE status = 'enabled'
ORDER BY partner_id, id;

-- name: lock_endpoint_to_feed(partner_id, id)^
-- One dispatcher at a time feeds an endpoint; another skips it rather than waits.
SELECT partner_id, id, environment, subscribed_types, log_position
FROM webhook_endpoints
WHERE partner_id = :partner_id AND id = :id AND status = 'enabled'
FOR UPDATE SKIP LOCKED;

-- name: add_deliveries(partner_id, endpoint_id, deliveries)!
-- `deliveries`: a JSON array of {event_id, event_type, body}. An event already delivered to the
-- endpoint (read again after a crash) is not added twice.
INSERT INTO webhook_deliveries (partner_id, endpoint_id, event_id, event_type, body,
                                next_attempt_at)
SELECT :partner_id, :endpoint_id, d.event_id, d.event_type, d.body, now()
FROM jsonb_to_recordset(:deliveries::jsonb) AS d(event_id text, event_type text, body text)
ON CONFLICT (partner_id, endpoint_id, event_id) DO NOTHING;

-- name: advance_position(partner_id, id, log_position)!
UPDATE webhook_endpoints SET log_position = :log_position
WHERE partner_id = :partner_id AND id = :id;

-- name: tenants_due(max_count)
-- The partners and environments (each a tenant with its share of the senders) with a delivery
-- due and not in flight, most overdue first.
SELECT d.partner_id, e.environment
FROM webhook_deliveries d
JOIN webhook_endpoints e ON e.partner_id = d.partner_id AND e.id = d.endpoint_id
WHERE d.status = 'pending' AND d.next_attempt_at <= now()
  AND (d.leased_until IS NULL OR d.leased_until <= now())
GROUP BY d.partner_id, e.environment
ORDER BY min(d.next_attempt_at)
LIMIT :max_count;

-- name: claim_due(partner_id, environment, busy_endpoints, per_endpoint, max_count, lease_seconds)
-- The tenant's due deliveries not in flight, soonest first, at most `per_endpoint` of each
-- endpoint and none of the `busy_endpoints` (those already holding their share of this
-- sender's requests). A claim counts the attempt, numbers the claim and leases the delivery:
-- no other claim takes it before `leased_until` (far past the attempt's deadline), and a sender
-- that dies leaves it due again then. Two senders never claim one row (SKIP LOCKED).
WITH due AS (
    SELECT endpoint_id, event_id
    FROM (SELECT d.endpoint_id, d.event_id, d.next_attempt_at,
                 row_number() OVER (PARTITION BY d.endpoint_id
                                    ORDER BY d.next_attempt_at) AS nth
          FROM webhook_deliveries d
          JOIN webhook_endpoints e ON e.partner_id = d.partner_id AND e.id = d.endpoint_id
          WHERE d.partner_id = :partner_id AND e.environment = :environment
            AND d.status = 'pending' AND d.next_attempt_at <= now()
            AND (d.leased_until IS NULL OR d.leased_until <= now())
            AND (e.status = 'enabled' OR (d.manual AND e.status = 'disabled'))
            AND NOT (d.endpoint_id = ANY(:busy_endpoints::text[]))) AS ranked
    WHERE nth <= :per_endpoint
    ORDER BY next_attempt_at
    LIMIT :max_count
), locked AS (
    SELECT d.partner_id, d.endpoint_id, d.event_id
    FROM webhook_deliveries d JOIN due USING (endpoint_id, event_id)
    WHERE d.partner_id = :partner_id AND d.status = 'pending'
      AND (d.leased_until IS NULL OR d.leased_until <= now())
    FOR UPDATE OF d SKIP LOCKED
)
UPDATE webhook_deliveries d
SET attempts = d.attempts + 1, claim = d.claim + 1, manual = false,
    -- least() skips a NULL: now() the first time (Citus refuses now() inside coalesce)
    last_attempt_at = now(), first_attempt_at = least(d.first_attempt_at, now()),
    leased_until = now() + make_interval(secs => :lease_seconds)
FROM locked, webhook_endpoints e
WHERE d.partner_id = :partner_id AND d.partner_id = locked.partner_id
  AND d.endpoint_id = locked.endpoint_id AND d.event_id = locked.event_id
  AND e.partner_id = d.partner_id AND e.id = d.endpoint_id
RETURNING d.partner_id, d.endpoint_id, d.event_id, d.body, d.claim, d.attempts,
          d.first_attempt_at, d.last_attempt_at, e.url, e.environment, e.secret_sealed;

-- name: record_delivered(partner_id, endpoint_id, event_id, claim, status_code)^
-- Only the latest claim's holder records (a sender whose lease ran out does not), and only
-- while the delivery is pending (not failed meanwhile by its endpoint's deletion). A replay
-- asked during the attempt (`manual` again) stays due.
UPDATE webhook_deliveries
SET status = CASE WHEN manual THEN 'pending' ELSE 'delivered' END,
    next_attempt_at = CASE WHEN manual THEN next_attempt_at END,
    last_status_code = :status_code, last_error = NULL, leased_until = NULL
WHERE partner_id = :partner_id AND endpoint_id = :endpoint_id AND event_id = :event_id
  AND claim = :claim AND status = 'pending'
RETURNING status;

-- name: record_failed_attempt(partner_id, endpoint_id, event_id, claim, status_code, error, next_attempt_at)^
-- Pending again until `next_attempt_at`, or `failed` when no retry is left (NULL); a replay
-- asked during the attempt stays due now. Fenced as record_delivered.
UPDATE webhook_deliveries
SET status = CASE WHEN manual OR :next_attempt_at::timestamptz IS NOT NULL THEN 'pending'
                  ELSE 'failed' END,
    next_attempt_at = CASE WHEN manual THEN next_attempt_at
                           ELSE :next_attempt_at::timestamptz END,
    last_status_code = :status_code, last_error = :error, leased_until = NULL
WHERE partner_id = :partner_id AND endpoint_id = :endpoint_id AND event_id = :event_id
  AND claim = :claim AND status = 'pending'
RETURNING status;

-- name: endpoint_answered(partner_id, endpoint_id)!
UPDATE webhook_endpoints SET failing_since = NULL
WHERE partner_id = :partner_id AND id = :endpoint_id AND failing_since IS NOT NULL;

-- name: endpoint_failed(partner_id, endpoint_id, attempted_at, failing_before)^
-- Failing since the first failure after the last success; failing since `failing_before` (the
-- attempt's time less 5 days) or earlier: disabled. Times are parameters, not now(): Citus
-- refuses a function that is not immutable inside CASE.
UPDATE webhook_endpoints
SET failing_since = coalesce(failing_since, :attempted_at),
    status = CASE WHEN status = 'enabled'
                       AND coalesce(failing_since, :attempted_at) <= :failing_before
                  THEN 'disabled' ELSE status END,
    disabled_at = CASE WHEN status = 'enabled'
                            AND coalesce(failing_since, :attempted_at) <= :failing_before
                       THEN :attempted_at ELSE disabled_at END
WHERE partner_id = :partner_id AND id = :endpoint_id
RETURNING status, status = 'disabled' AND disabled_at = :attempted_at AS disabled_now;
