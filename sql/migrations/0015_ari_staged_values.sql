-- 0015_ari_staged_values: where an ARI apply (and a dry run) stages the values it judged, in
-- place of a temporary table.
-- On Citus, a temporary table lives on the coordinator, so the day-table upserts that read it
-- went through the coordinator (COPY into intermediate results), and Citus commits every such
-- COPY with two-phase commit: each apply paid a PREPARE and a COMMIT PREPARED on its one worker.
-- This table is distributed by property_id beside the day tables and batches
-- (connectivity/store/sharding.py): staging reads a batch's own shard and writes the same shard, the
-- upserts read it there, and a one-hotel apply is router statements committed in one phase.
--
-- A staging is the rows of one `stage` (a uuid drawn per staging), inserted, read and deleted in
-- one transaction, so no other transaction ever sees them, and a run that fails leaves nothing
-- (rolled back). Every statement still names its stage: should a staging ever be left behind,
-- no later apply would write its values again. UNLOGGED: these rows never outlive their
-- transaction, so writing them to the WAL (and to replicas) would buy nothing; after a crash
-- PostgreSQL empties the table, which is the state it is always in between transactions.
--
-- One row per (item, date) for an item that can apply (an ARI item is one date, a restriction
-- item every selected weekday of its range), one row per rejected item, with its rejection
-- code and what its message names.
CREATE UNLOGGED TABLE ari_staged_values (
    stage                uuid NOT NULL,
    property_id          bigint NOT NULL,
    batch_id             text NOT NULL,
    -- batch seq x 8192 + item index: later batches, and later items of one batch, are newer
    seq                  bigint NOT NULL,
    date                 date,
    room_type_id         bigint,
    rate_plan_id         bigint,
    available            integer,
    rate                 numeric,
    single_rate          numeric,
    extra_adult_rate     numeric,
    extra_child_rate     numeric,
    closed               boolean,
    min_stay             smallint,
    max_stay             smallint,
    closed_to_arrival    boolean,
    closed_to_departure  boolean,
    rejection            text,
    room_type_code       text,
    rate_plan_code       text,
    currency             text,
    plan_currency        text,
    from_date            date,
    to_date              date,
    -- a value to write has its date and room type; a rejected item is one undated row
    CONSTRAINT ari_staged_values_applies_or_rejected CHECK (
        (rejection IS NULL) = (date IS NOT NULL)
        AND (rejection IS NOT NULL OR room_type_id IS NOT NULL))
);

-- Every statement names its stage; the property first, so that on Citus each shard's index
-- serves the shard's own hotels.
CREATE INDEX ari_staged_values_stage ON ari_staged_values (property_id, stage);
