-- 0014_ari_batch_sandbox_scenario: the sandbox scenario an ARI batch was pushed with
-- (X-Sandbox-Scenario, contract 11.4), as data the worker reads: `partially_applied` rejects
-- item 0 with code `sandbox_scenario` (sql/queries/ari/apply.sql); `delayed_apply` sets
-- `apply_after`, 10 s after acceptance: the batch's job is scheduled for then, and a worker that
-- claims batches by itself must leave it `queued` until then.
-- migration: no-transaction
-- Runs outside a transaction so that VALIDATE scans under its own weaker lock. Each statement
-- can run again after a failed run.
-- Locks: ADD COLUMN (nullable, no default: catalogue-only) and ADD CONSTRAINT ... NOT VALID take
-- ACCESS EXCLUSIVE on ari_batches for an instant (under the runner's 5 s lock_timeout); VALIDATE
-- scans the table under SHARE UPDATE EXCLUSIVE, which lets pushes and applies go on.

ALTER TABLE ari_batches ADD COLUMN IF NOT EXISTS sandbox_scenario text;
ALTER TABLE ari_batches ADD COLUMN IF NOT EXISTS apply_after timestamptz;

-- Only the two scenarios that store, and only in the sandbox: production ARI is never altered.
ALTER TABLE ari_batches DROP CONSTRAINT IF EXISTS ari_batches_sandbox_scenario;
ALTER TABLE ari_batches ADD CONSTRAINT ari_batches_sandbox_scenario CHECK (
    (sandbox_scenario IS NULL
     OR (sandbox_scenario IN ('partially_applied', 'delayed_apply') AND environment = 'sandbox'))
    -- a delayed batch, and only one, says from when it may apply
    AND coalesce(sandbox_scenario = 'delayed_apply', false) = (apply_after IS NOT NULL)
) NOT VALID;
ALTER TABLE ari_batches VALIDATE CONSTRAINT ari_batches_sandbox_scenario;
