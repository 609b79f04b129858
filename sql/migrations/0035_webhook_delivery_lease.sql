-- 0035_webhook_delivery_lease: a webhook delivery's claim leases it in a column of its own,
-- `leased_until`, rather than by moving `next_attempt_at` (contract 12.3: one delivery is never
-- in flight twice at once). A replay asked while an attempt is in flight makes the delivery due
-- now, and before this the claim took "due now" for "not in flight": the replay was sent beside
-- the attempt. Now a claim takes only deliveries whose lease has run out (or that never had
-- one), and recording the outcome ends the lease
-- (sql/queries/webhooks/deliveries.sql). A delivery claimed before this migration keeps its old
-- lease in `next_attempt_at` and its claim number: nothing to backfill.
-- Locks: ACCESS EXCLUSIVE on webhook_deliveries for a moment (a nullable column without a
-- default is added without rewriting the table); on Citus the same on each shard.

ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz;
