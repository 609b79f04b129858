-- 0007_ari_batch_items_pruning: lets `flask --app app ari prune-items` drop the items of old
-- finished batches (up to 5,000 JSON items each) while every batch keeps its outcome.
-- migration: no-transaction
-- Runs outside a transaction so that the index is built CONCURRENTLY: ari_batches grows with
-- every push, and a plain CREATE INDEX would hold a SHARE lock (every push waiting) for the
-- length of a full scan. Each statement can run again after a failed run.
-- Locks: ADD COLUMN (nullable, no default: catalogue-only) and ADD CONSTRAINT ... NOT VALID
-- take ACCESS EXCLUSIVE on ari_batches for an instant (under the runner's 5 s lock_timeout);
-- VALIDATE scans the table under SHARE UPDATE EXCLUSIVE, which lets pushes and applies go on;
-- the concurrent build blocks no writer.

ALTER TABLE ari_batches ADD COLUMN IF NOT EXISTS items_pruned_at timestamptz;

-- Only a finished batch's items go (a failed one keeps them, for an operator to look at), and
-- a pruned batch holds no item any more.
ALTER TABLE ari_batches DROP CONSTRAINT IF EXISTS ari_batches_items_pruned_when_finished;
ALTER TABLE ari_batches ADD CONSTRAINT ari_batches_items_pruned_when_finished CHECK (
    items_pruned_at IS NULL
    OR (status IN ('applied', 'partially_applied', 'rejected') AND items = '[]'::jsonb)
) NOT VALID;
ALTER TABLE ari_batches VALIDATE CONSTRAINT ari_batches_items_pruned_when_finished;

-- The pruning scan: finished batches whose items are still there, oldest first.
DROP INDEX CONCURRENTLY IF EXISTS ari_batches_items_kept_idx;
CREATE INDEX CONCURRENTLY ari_batches_items_kept_idx ON ari_batches (applied_at)
    WHERE items_pruned_at IS NULL AND status IN ('applied', 'partially_applied', 'rejected');
