-- 0041_change_feed_horizons_per_node: each node's horizon read from one probe on it, not from
-- every shard of change_log_probes (0039). On plain PostgreSQL nothing changes: the function
-- answers for origin 0 alone, as before.
-- Locks: none (CREATE OR REPLACE FUNCTION).
--
-- 0039 read every probe: one shard task each, 32 by default, for two nodes' snapshots. Every
-- full catch-up of the read model (once a second) and every page of the feed and the event log
-- paid for them: 62 ms of the coordinator's time a call on the bench cluster while writes ran
-- (pg_stat_statements, docs/benchmarks-history.md 11-30). A horizon needs one snapshot a node,
-- so one probe a node is read now, asked for by its value: Citus then sends tasks to those
-- probes' shards alone (EXPLAIN: 2 tasks, against 32).
--
-- Which value: `citus distribute` stores in each shard the smallest value of 1..100,000 that
-- hashes to it (sql/queries/operator/citus_distribute.sql). The smallest value hashing to any
-- of a node's shards is then the stored row of its own shard, whatever the placement is now
-- (the catalogue is read at each call, so a shard moved or split is followed). Values are
-- looked for among the first 256: a node whose shards none of them hashes to, or whose probe
-- is missing (shards split since the last `distribute`), finds no row, and the function asks
-- every worker as 0013 did, as 0039 did for a missing probe: never answering without a node.

CREATE OR REPLACE FUNCTION change_feed_horizons()
RETURNS TABLE (origin integer, horizon xid8, next_xid xid8)
LANGUAGE plpgsql AS $$
DECLARE
    w record;
    probed integer[] := '{}';
    horizons xid8[] := '{}';
    next_xids xid8[] := '{}';
    placed boolean;
    probes bigint[];
BEGIN
    RETURN QUERY SELECT 0, pg_snapshot_xmin(s), pg_snapshot_xmax(s) FROM pg_current_snapshot() s;
    IF to_regclass('pg_catalog.pg_dist_node') IS NULL THEN
        RETURN;
    END IF;
    -- Citus's catalogs through EXECUTE, so that plain PostgreSQL never resolves them.
    EXECUTE $q$SELECT EXISTS (SELECT FROM pg_dist_partition
                               WHERE logicalrelid = 'change_log_probes'::regclass)$q$
       INTO placed;
    IF placed THEN
        -- One probe value a node: the smallest of 1..256 hashing to one of its shards. Each
        -- value's shard is found first, once (MATERIALIZED): as a join condition the function
        -- ran for every pair of a value and a placement (150,000 calls, 50 ms).
        EXECUTE $q$WITH candidates AS MATERIALIZED (
                       SELECT v, get_shard_id_for_distribution_column('change_log_probes', v)
                                 AS shardid
                         FROM generate_series(1, 256) v)
                   SELECT array_agg(v) FROM (
                       SELECT DISTINCT ON (pl.groupid) c.v
                         FROM candidates c JOIN pg_dist_placement pl USING (shardid)
                        WHERE pl.groupid <> 0
                        ORDER BY pl.groupid, c.v) AS chosen$q$
           INTO probes;
        -- The probes are read as one distributed query (MATERIALIZED: pushed down whole to
        -- their shards, the values as constants so that Citus prunes the others; its rows then
        -- matched to their placements on the coordinator). Every node holding change_log
        -- shards, the coordinator's own aside (answered above), must have answered.
        FOR w IN EXECUTE format($q$
            WITH probed AS MATERIALIZED (
                SELECT property_id, pg_snapshot_xmin(pg_current_snapshot()) AS horizon,
                       pg_snapshot_xmax(pg_current_snapshot()) AS next_xid
                  FROM change_log_probes
                 WHERE property_id = ANY(%L::bigint[])),
            answered AS MATERIALIZED (  -- each probe's shard found once, as above
                SELECT get_shard_id_for_distribution_column('change_log_probes', property_id)
                           AS shardid, horizon, next_xid
                  FROM probed)
            SELECT h.groupid, min(a.horizon::text::numeric)::text AS horizon,
                   max(a.next_xid::text::numeric)::text AS next_xid
              FROM (SELECT DISTINCT pl.groupid
                      FROM pg_dist_shard sh JOIN pg_dist_placement pl USING (shardid)
                     WHERE sh.logicalrelid = 'change_log'::regclass AND pl.groupid <> 0) AS h
              LEFT JOIN pg_dist_placement pl ON pl.groupid = h.groupid
              LEFT JOIN answered a USING (shardid)
             GROUP BY h.groupid$q$, coalesce(probes, '{}'))
        LOOP
            IF w.horizon IS NULL THEN
                probed := NULL;  -- a node without a probe: ask every worker, below
                EXIT;
            END IF;
            probed := probed || w.groupid;
            horizons := horizons || w.horizon::xid8;
            next_xids := next_xids || w.next_xid::xid8;
        END LOOP;
        IF cardinality(probed) > 0 THEN
            RETURN QUERY SELECT * FROM unnest(probed, horizons, next_xids);
            RETURN;
        END IF;
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
