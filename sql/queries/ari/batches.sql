-- name: find_mapped_hotel(partner_id, environment, hotel_code)^
-- The caller's mapping of a hotel code, paused or not: a pause hides a property from selling,
-- never from the channel manager that keeps its ARI (contract section 8).
SELECT pp.id AS mapping_id, pp.property_id, pp.hotel_code
  FROM partner_properties pp
 WHERE pp.partner_id = :partner_id AND pp.environment = :environment
   AND pp.hotel_code = :hotel_code;

-- name: accept_batch(id, partner_id, environment, mapping_id, property_id, hotel_code, kind, items, item_count, sandbox_scenario, delay_seconds)^
-- `delay_seconds`: for X-Sandbox-Scenario delayed_apply, how long after acceptance the batch may
-- apply (`apply_after`, on the database's clock like `received_at`); NULL otherwise.
INSERT INTO ari_batches (id, partner_id, environment, mapping_id, property_id, hotel_code, kind,
                         items, item_count, sandbox_scenario, apply_after)
VALUES (:id, :partner_id, :environment, :mapping_id, :property_id, :hotel_code, :kind,
        :items, :item_count, :sandbox_scenario,
        now() + make_interval(secs => CAST(:delay_seconds AS double precision)))
RETURNING id AS batch_id, status, item_count, apply_after;

-- name: batch_outcome(id, partner_id, environment)^
-- A batch as its partner sees it; another partner's (or environment's) is not there at all.
SELECT id AS batch_id, kind, hotel_code, status, item_count, applied_count, rejected_count,
       rejected, received_at, applied_at
  FROM ari_batches
 WHERE id = :id AND partner_id = :partner_id AND environment = :environment;

-- name: mark_processing(id)!
-- Committed on its own before the apply, so GET /ari/batches shows the work in hand; a batch
-- already finished is left alone.
UPDATE ari_batches SET status = 'processing', attempts = attempts + 1,
       started_at = clock_timestamp()
 WHERE id = :id AND status IN ('queued', 'processing');

-- name: lock_unfinished_batch(id)^
-- The apply's first statement: a second run of the same batch waits here, then finds it
-- finished and does nothing.
SELECT id, seq, kind, item_count
  FROM ari_batches
 WHERE id = :id AND status IN ('queued', 'processing')
   FOR UPDATE;

-- name: finish_batch(id, applied_count, rejected_count, rejected)!
UPDATE ari_batches
   SET status = CASE WHEN :rejected_count = 0 THEN 'applied'
                     WHEN :applied_count = 0 THEN 'rejected'
                     ELSE 'partially_applied' END,
       applied_count = :applied_count, rejected_count = :rejected_count,
       -- The moment the outcome is written, not the transaction's start (now()).
       rejected = :rejected, applied_at = clock_timestamp(), failure = NULL
 WHERE id = :id;

-- name: fail_batch(id, failure)!
-- Processing itself failed, after the job's retries: reported, and left for an operator.
UPDATE ari_batches SET status = 'failed', failure = :failure, applied_at = clock_timestamp()
 WHERE id = :id AND status IN ('queued', 'processing');

-- name: stranded_batches(older_than_seconds, max_count)
-- Unfinished batches old enough that their job should have run: Redis may have lost it, been
-- down when the batch was accepted, or the worker applying it may have died.
SELECT id
  FROM ari_batches
 WHERE status IN ('queued', 'processing')
   AND coalesce(started_at, received_at) < now() - make_interval(secs => :older_than_seconds)
 ORDER BY received_at
 LIMIT :max_count;

-- name: prune_batch_items(retention_days, max_count)
-- Drops the items of up to max_count finished batches applied more than retention_days ago;
-- status, counts and rejected rows (the outcome GET /ari/batches shows) stay. SKIP LOCKED: two
-- operators' runs share the work instead of waiting on each other.
WITH old AS (
    SELECT id FROM ari_batches
     WHERE items_pruned_at IS NULL AND status IN ('applied', 'partially_applied', 'rejected')
       AND applied_at < now() - make_interval(days => :retention_days)
     ORDER BY applied_at
     LIMIT :max_count
       FOR UPDATE SKIP LOCKED
)
UPDATE ari_batches b SET items = '[]'::jsonb, items_pruned_at = now()
  FROM old WHERE b.id = old.id
RETURNING b.id;
