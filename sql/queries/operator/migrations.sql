-- name: create_ledger#
CREATE TABLE IF NOT EXISTS schema_migrations (
    version     text PRIMARY KEY,
    applied_at  timestamptz NOT NULL DEFAULT now()
);

-- name: lock_migrations()$
-- One upgrade at a time, even when two release steps start together.
SELECT pg_advisory_xact_lock(hashtext('connectivity.schema_migrations'));

-- name: applied_versions()
SELECT version FROM schema_migrations ORDER BY version;

-- name: record_version(version)!
INSERT INTO schema_migrations (version) VALUES (:version);

-- name: limit_migration_locks#
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '10min';
