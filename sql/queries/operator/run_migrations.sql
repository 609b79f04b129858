-- name: create_ledger#
CREATE TABLE IF NOT EXISTS schema_migrations (
    version     text PRIMARY KEY,
    applied_at  timestamptz NOT NULL DEFAULT now()
);

-- name: try_lock_migrations()$
-- One upgrade at a time, even when two release steps start together. Tried, not waited for:
-- the runner waits between tries outside any transaction (operator/migrations.py says why).
SELECT pg_try_advisory_xact_lock(hashtext('connectivity.schema_migrations'));

-- name: applied_versions()
SELECT version FROM schema_migrations ORDER BY version;

-- name: record_version(version)!
INSERT INTO schema_migrations (version) VALUES (:version);

-- name: limit_migration_locks#
SET LOCAL lock_timeout = '5s';
SET LOCAL statement_timeout = '10min';

-- name: try_lock_migrations_for_session()$
-- The same lock for a migration that runs outside a transaction: held by the session until
-- unlock_migrations_for_session.
SELECT pg_try_advisory_lock(hashtext('connectivity.schema_migrations'));

-- name: unlock_migrations_for_session()$
SELECT pg_advisory_unlock(hashtext('connectivity.schema_migrations'));

-- name: limit_session_locks#
SET lock_timeout = '5s';
SET statement_timeout = 0;

-- name: reset_session_locks#
RESET lock_timeout;
RESET statement_timeout;

-- name: invalid_indexes()
-- Indexes a failed CREATE INDEX CONCURRENTLY left behind.
SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE NOT i.indisvalid AND n.nspname = current_schema()
 ORDER BY c.relname;
