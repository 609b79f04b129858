-- 0013_change_feed_origins: the change feed's positions, horizons and pruning marks per origin,
-- the node whose transaction ids a change_log row carries (0012; docs/operations.md 3.3, "On
-- Citus"). On plain PostgreSQL there is one origin, 0, and nothing changes in what is served.
-- Locks: ALTER TABLE change_log_pruned (one row, ACCESS EXCLUSIVE for an instant; only the
-- feed and its pruning read it); CREATE FUNCTION takes none.

-- On a cluster already distributed, the DDL reaches the reference table's placements on every
-- node in one connection per node (0012's comment).
SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

-- One pruned-through xid per origin: xids of different nodes are not comparable. The existing
-- mark was taken on plain PostgreSQL, so it is origin 0's.
ALTER TABLE change_log_pruned DROP CONSTRAINT change_log_pruned_pkey;
ALTER TABLE change_log_pruned DROP COLUMN only_row;
ALTER TABLE change_log_pruned ADD COLUMN origin integer NOT NULL DEFAULT 0;
ALTER TABLE change_log_pruned ADD PRIMARY KEY (origin);

-- Each origin's horizon, read on that node: every transaction of that node below it has
-- finished (a distributed transaction prepared there and not yet COMMIT PREPARED is still in
-- progress in that node's snapshot). Read before the page's own query, it stays safe: whatever
-- is below it had finished before the page's snapshot is taken on that node. Citus would push
-- pg_snapshot_xmin(pg_current_snapshot()) down into each shard query, but a worker may serve its
-- shards over several connections, each with its own snapshot, and a shard with no row returns
-- nothing: no single horizon per node comes back from the page itself. Hence this function.
-- Citus's functions are called through EXECUTE so that plain PostgreSQL never resolves them.
-- next_xid (the snapshot's xmax) is for waiting: once every origin's horizon has reached the
-- next_xid read earlier, whatever had committed by then is served.
CREATE FUNCTION change_feed_horizons()
RETURNS TABLE (origin integer, horizon xid8, next_xid xid8)
LANGUAGE plpgsql AS $$
DECLARE
    w record;
BEGIN
    RETURN QUERY SELECT 0, pg_snapshot_xmin(s), pg_snapshot_xmax(s) FROM pg_current_snapshot() s;
    IF to_regclass('pg_catalog.pg_dist_node') IS NULL THEN
        RETURN;
    END IF;
    FOR w IN EXECUTE $q$SELECT nodename, nodeport, success, result
                          FROM run_command_on_workers($c$SELECT concat_ws(' ', groupid,
                               pg_snapshot_xmin(s), pg_snapshot_xmax(s))
                               FROM pg_dist_local_group, pg_current_snapshot() s$c$)$q$
    LOOP
        -- A worker that cannot answer would leave its changes unserved without a word.
        IF NOT w.success THEN
            RAISE EXCEPTION 'change feed: no horizon from %:%: %', w.nodename, w.nodeport,
                            w.result;
        END IF;
        origin := split_part(w.result, ' ', 1)::integer;
        horizon := split_part(w.result, ' ', 2)::xid8;
        next_xid := split_part(w.result, ' ', 3)::xid8;
        RETURN NEXT;
    END LOOP;
END $$;
