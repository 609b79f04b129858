-- 0039_change_log_probes: each origin's horizon read over the connections a session already
-- holds to the Citus workers, instead of new ones every time (docs/operations.md 6.4, "The
-- change feed on Citus"). On plain PostgreSQL nothing changes: the table stays empty and the
-- function answers for origin 0 alone, as before.
-- Locks: none on existing tables (a new table; CREATE OR REPLACE FUNCTION takes none).
--
-- run_command_on_workers, which 0013's change_feed_horizons() called, opens a new connection
-- to every worker each time (Citus's citus_tools.c: FORCE_NEW_CONNECTION): every full
-- catch-up of the read model and every page of the feed paid for a connection per worker.
-- A query on a distributed table goes over the session's cached connections instead. So one
-- row in each shard of a table colocated with change_log (`citus distribute` puts them
-- there, connectivity/operator/citus.py) makes a query whose every shard task reads its
-- node's snapshot: colocated shards share a node, so every node holding change_log shards
-- answers, and a shard's placement names the node (its group: the origin change_log_stamp()
-- writes). Any snapshot of a node is a valid horizon for it; of several, the lowest horizon
-- and the highest next xid are kept.
--
-- Until `citus distribute` has placed and filled the table (a cluster migrated before it runs
-- again), a node holding change_log shards has no probe: the function then asks every worker
-- as 0013 did, never answering without a node.

CREATE TABLE change_log_probes (
    property_id bigint PRIMARY KEY  -- any value, chosen for the shard it hashes to
);

CREATE OR REPLACE FUNCTION change_feed_horizons()
RETURNS TABLE (origin integer, horizon xid8, next_xid xid8)
LANGUAGE plpgsql AS $$
DECLARE
    w record;
    probed integer[] := '{}';
    horizons xid8[] := '{}';
    next_xids xid8[] := '{}';
    placed boolean;
BEGIN
    RETURN QUERY SELECT 0, pg_snapshot_xmin(s), pg_snapshot_xmax(s) FROM pg_current_snapshot() s;
    IF to_regclass('pg_catalog.pg_dist_node') IS NULL THEN
        RETURN;
    END IF;
    -- Citus's catalogs through EXECUTE, so that plain PostgreSQL never resolves them. The
    -- probes are read as one distributed query (MATERIALIZED: pushed down whole to the shards,
    -- its rows then matched to their placements on the coordinator). Every node holding
    -- change_log shards, the coordinator's own aside (answered above), must have answered.
    EXECUTE $q$SELECT EXISTS (SELECT FROM pg_dist_partition
                               WHERE logicalrelid = 'change_log_probes'::regclass)$q$
       INTO placed;
    IF placed THEN
        FOR w IN EXECUTE $q$
            WITH probed AS MATERIALIZED (
                SELECT property_id, pg_snapshot_xmin(pg_current_snapshot()) AS horizon,
                       pg_snapshot_xmax(pg_current_snapshot()) AS next_xid
                  FROM change_log_probes)
            SELECT h.groupid, min(p.horizon::text::numeric)::text AS horizon,
                   max(p.next_xid::text::numeric)::text AS next_xid
              FROM (SELECT DISTINCT pl.groupid
                      FROM pg_dist_shard sh JOIN pg_dist_placement pl USING (shardid)
                     WHERE sh.logicalrelid = 'change_log'::regclass AND pl.groupid <> 0) AS h
              LEFT JOIN pg_dist_placement pl ON pl.groupid = h.groupid
              LEFT JOIN probed p
                ON pl.shardid = get_shard_id_for_distribution_column('change_log_probes',
                                                                     p.property_id)
             GROUP BY h.groupid$q$
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
