-- A batch finished: with its outcome, in the apply's own transaction (finish_batches), or as
-- failed once its job's retries are spent (fail_batch, connectivity/ari/jobs.py).

-- name: finish_batches(outcomes, property_ids)
-- Every batch of a group with its own outcome, in one statement: outcomes is a JSON object
-- {batch id: {"applied_count", "rejected_count", "rejected"}}. Each batch as GET
-- /ari/batches/{batchId} now answers it, for its ari_batch.finished event.
UPDATE ari_batches b
   SET status = CASE WHEN (o.outcome->>'rejected_count')::integer = 0 THEN 'applied'
                     WHEN (o.outcome->>'applied_count')::integer = 0 THEN 'rejected'
                     ELSE 'partially_applied' END,
       applied_count = (o.outcome->>'applied_count')::integer,
       rejected_count = (o.outcome->>'rejected_count')::integer,
       -- The moment the outcome is written, not the transaction's start (now()); the
       -- statement's start rather than clock_timestamp(): Citus refuses volatile functions in
       -- an UPDATE of a distributed table.
       rejected = o.outcome->'rejected', applied_at = statement_timestamp(), failure = NULL
  FROM jsonb_each(:outcomes) AS o(id, outcome)
 -- (property_ids: under Citus, only the group's hotels' shards are touched)
 WHERE b.property_id = ANY(:property_ids)
   AND b.id = o.id
RETURNING b.id AS batch_id, b.kind, b.hotel_code, b.status, b.item_count, b.applied_count,
          b.rejected_count, b.rejected, b.received_at, b.applied_at, b.property_id,
          b.partner_id, b.environment;

-- name: fail_batch(id, failure)
-- Processing itself failed, after the job's retries: reported, and left for an operator. The
-- batch as finish_batches returns it (none when it had finished already).
UPDATE ari_batches SET status = 'failed', failure = :failure, applied_at = statement_timestamp()
 WHERE id = :id AND status IN ('queued', 'processing')
RETURNING id AS batch_id, kind, hotel_code, status, item_count, applied_count, rejected_count,
          rejected, received_at, applied_at, property_id, partner_id, environment;
