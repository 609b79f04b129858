-- The batches' upkeep: those whose job was lost (connectivity/ari/queue.py, recovery) and the
-- items of old finished ones (`flask --app app ari prune-items`, connectivity/ari/retention.py).

-- name: stranded_batches(older_than_seconds, max_count)
-- Unfinished batches old enough that their job should have run: Redis may have lost it, been
-- down when the batch was accepted, or the worker applying it may have died.
SELECT id, property_id
  FROM ari_batches
 WHERE status IN ('queued', 'processing')
   AND coalesce(started_at, received_at) < now() - make_interval(secs => :older_than_seconds)
 ORDER BY received_at
 LIMIT :max_count;

-- name: prune_batch_items(retention_days, max_count)
-- Drops the items of up to max_count finished batches applied more than retention_days ago;
-- status, counts and rejected rows (the outcome GET /ari/batches shows) stay. The oldest are
-- picked without locking them (under Citus a FOR UPDATE must be a router query, on one hotel's
-- shard, and these span every hotel), and the UPDATE checks again that a batch is still
-- unpruned: a second operator's run picking the same batches waits for the first's row locks,
-- then finds them pruned and leaves them, so each batch is pruned once.
UPDATE ari_batches b SET items = '[]'::jsonb, items_pruned_at = now()
 WHERE b.id IN (SELECT id FROM ari_batches
                 WHERE items_pruned_at IS NULL
                   AND status IN ('applied', 'partially_applied', 'rejected')
                   AND applied_at < now() - make_interval(days => :retention_days)
                 ORDER BY applied_at
                 LIMIT :max_count)
   AND b.items_pruned_at IS NULL
RETURNING b.id;
