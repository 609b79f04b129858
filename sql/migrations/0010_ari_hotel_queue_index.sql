-- 0010_ari_hotel_queue_index: the worker takes the unfinished batches of the hotels it holds,
-- oldest first (claim_batches in sql/queries/ari/batches.sql), once per group it applies.
-- migration: no-transaction
-- Runs outside a transaction so that the index is built CONCURRENTLY: ari_batches grows with
-- every push, and a plain CREATE INDEX would hold a SHARE lock (every push waiting) for a full
-- scan. The concurrent build blocks no writer; the statements can run again after a failed run.
--
-- Without it the claim reads every unfinished batch (the partial index on received_at) to find
-- those of its hotels: a backlog of N batches made each claim cost O(N). The index stays small:
-- a batch leaves it when it is finished.

DROP INDEX CONCURRENTLY IF EXISTS ari_batches_hotel_unfinished_idx;
CREATE INDEX CONCURRENTLY ari_batches_hotel_unfinished_idx ON ari_batches (property_id, seq)
    WHERE status IN ('queued', 'processing');
