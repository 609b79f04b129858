-- name: wal_position()$
-- The primary's current WAL position, read after a write committed (connectivity/store/read_fence.py):
-- the read fence's token carries it when a read replica is configured, and a read goes to the
-- replica only once the replica has replayed that far. Its commit record lies before it.
SELECT pg_current_wal_lsn()::text AS position;
