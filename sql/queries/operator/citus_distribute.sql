-- The statements of `flask --app app citus distribute` (connectivity/operator/citus.py): all the
-- create_* calls in one transaction, each in a savepoint of its own.

-- name: citus_version()$
-- NULL on plain PostgreSQL.
SELECT extversion FROM pg_extension WHERE extname = 'citus';

-- name: try_lock_distribution()$
-- One distribute at a time: two would race to start the same colocation group.
SELECT pg_try_advisory_lock(hashtext('connectivity.citus_distribute'));

-- name: unlock_distribution()$
SELECT pg_advisory_unlock(hashtext('connectivity.citus_distribute'));

-- name: tables_to_place()
SELECT tablename AS table_name FROM pg_tables WHERE schemaname = current_schema()
 ORDER BY tablename;

-- name: placements()
-- How Citus holds each table now. partmethod 'h': hash-distributed; 'n' with repmodel 't': a
-- reference table, with 's': a "Citus local" table (left on the coordinator).
SELECT c.relname AS table_name, p.partmethod, p.repmodel, p.colocationid,
       CASE WHEN p.partmethod = 'h'
            THEN column_to_column_name(p.logicalrelid, p.partkey) END AS distribution_column
  FROM pg_dist_partition p
  JOIN pg_class c ON c.oid = p.logicalrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = current_schema();

-- name: keep_reference_foreign_keys_local#
-- Without it, create_reference_table silently turns every table that references the new
-- reference table into a Citus local table, which then cannot be distributed when it has an
-- identity column ("cannot complete operation on a table with identity column").
SET citus.enable_local_reference_table_foreign_keys = off;

-- name: copy_rows_without_triggers#
-- For this transaction, on the coordinator and on the workers it opens connections to: the rows
-- of a filled table are copied into its shards with the shards' triggers silent. Copying is not
-- a change: the day tables' change-log triggers would otherwise log every stored row as changed
-- (and fail outright while change_log is not distributed yet).
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL session_replication_role = 'replica';

-- name: create_reference_table(table_name)$
SELECT create_reference_table(:table_name::regclass)::text;

-- name: start_colocation_group(table_name, distribution_column, shard_count)$
-- The first table of a group: its own group ('none'), with this many shards.
SELECT create_distributed_table(:table_name::regclass, :distribution_column,
                                colocate_with => 'none', shard_count => :shard_count)::text;

-- name: join_colocation_group(table_name, distribution_column, colocated_table)$
-- Shards of the same hash range on the same node as the group's first table's: joins and
-- foreign keys between them stay on one node.
SELECT create_distributed_table(:table_name::regclass, :distribution_column,
                                colocate_with => :colocated_table)::text;

-- name: fill_change_log_probes()!
-- A row in every shard of change_log_probes (migration 0039): the smallest of the first
-- 100,000 values that hashes to it, so that a second run adds nothing and one after shards
-- were split adds a row to each new shard (until then the horizons are asked of every worker
-- anew). Every node holding change_log shards then answers change_feed_horizons() over the
-- session's cached connections.
INSERT INTO change_log_probes (property_id)
SELECT DISTINCT ON (shard) v
  FROM (SELECT v, get_shard_id_for_distribution_column('change_log_probes', v) AS shard
          FROM generate_series(1, 100000) v) AS candidates
 ORDER BY shard, v
ON CONFLICT DO NOTHING;
