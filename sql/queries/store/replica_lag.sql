-- name: replica_lag_seconds()^
-- How far this server is behind its primary, in seconds (connectivity/store/replica.py). Run on the
-- replica, by a lag check at most once a second per process.
-- * Not in recovery (a primary, or a promoted replica): never behind.
-- * Everything received is replayed, and WAL is streaming in: not behind, however long ago
--   the primary last committed (an idle primary must not make the replica look stale).
-- * Otherwise (replay behind what arrived, replay paused, or no WAL receiver so what it misses
--   is unknown): the age of the last transaction replayed. On a primary idle before the
--   write now pending this overstates the lag, which only sends reads to the primary sooner.
-- And how far it has replayed (NULL on a primary): a read that must reflect a write goes to the
-- replica only once this has passed the write's WAL position (store/read_fence.py).
SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN 0
    WHEN EXISTS (SELECT 1 FROM pg_stat_wal_receiver)
         AND pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
    ELSE coalesce(extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()),
                  'Infinity')
END::float8 AS lag_seconds,
       pg_last_wal_replay_lsn()::text AS replayed;
