-- 0012_change_log_on_shards: the change log written the same way on plain PostgreSQL and on a
-- Citus cluster (docs/operations.md 6.4, "The change feed on Citus").
-- Locks: CREATE OR REPLACE FUNCTION and CREATE TRIGGER on change_log (SHARE ROW EXCLUSIVE for
-- an instant); ADD COLUMN with a constant default (no rewrite).
--
-- Under Citus the day tables' statement triggers fire on the shards, on the worker holding
-- them, and a statement there that reads a transition table and writes a distributed table is
-- planned by Citus's executor, which cannot see the transition table ("could not find named
-- tuplestore"). The triggers below read the transition tables in a query of their own and
-- write each change with a plain INSERT: one per (property, room type, rate plan) a statement
-- touched, on the colocated change_log shard of the same worker.
--
-- Each change_log row's xid is the transaction id of the node that stores the row, set by a
-- row trigger on that node: a row inserted through the coordinator would otherwise get the
-- coordinator's transaction id (Citus evaluates defaults there), and the feed's horizon (the
-- xmin of a snapshot) means something only on the node whose transactions it counts.
-- `origin` names that node: its Citus group id (0 on plain PostgreSQL, and on the coordinator).

-- On a cluster already distributed, the DDL below reaches the shards and the function reaches
-- the workers; Citus then needs one connection per node for the whole transaction. A custom
-- setting: plain PostgreSQL accepts and ignores it.
SET LOCAL citus.multi_shard_modify_mode TO 'sequential';

ALTER TABLE change_log ADD COLUMN origin integer NOT NULL DEFAULT 0;

CREATE FUNCTION change_log_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.xid := pg_current_xact_id();
    IF to_regclass('pg_catalog.pg_dist_local_group') IS NOT NULL THEN
        EXECUTE 'SELECT groupid FROM pg_catalog.pg_dist_local_group' INTO NEW.origin;
    END IF;
    RETURN NEW;
END $$;

-- Through EXECUTE: on a distributed table Citus sends a CREATE TRIGGER to the shards as the
-- text of the command it received, and run with the rest of this file that text would be the
-- whole file, which the workers refuse as several commands in one prepared statement.
DO $$
BEGIN
    EXECUTE 'CREATE TRIGGER change_log_stamped BEFORE INSERT ON change_log '
            'FOR EACH ROW EXECUTE FUNCTION change_log_stamp()';
END $$;

CREATE OR REPLACE FUNCTION log_room_type_days_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    c record;
BEGIN
    FOR c IN
        SELECT property_id, room_type_id, date_min, date_max, kinds
          FROM (SELECT property_id, room_type_id, min(date) AS date_min, max(date) AS date_max,
                       array_remove(ARRAY[
                         CASE WHEN bool_or(available IS NOT NULL) THEN 'availability' END,
                         CASE WHEN bool_or(num_nonnulls(closed, min_stay, max_stay,
                                                        closed_to_arrival, closed_to_departure) > 0)
                              THEN 'restrictions' END], NULL) AS kinds
                  FROM new_rows GROUP BY property_id, room_type_id) AS g
         WHERE cardinality(kinds) > 0
    LOOP
        INSERT INTO change_log (property_id, room_type_id, from_date, to_date, kinds)
        VALUES (c.property_id, c.room_type_id, c.date_min, c.date_max, c.kinds);
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION log_room_type_days_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    c record;
BEGIN
    FOR c IN
        SELECT property_id, room_type_id, date_min, date_max, kinds
          FROM (SELECT n.property_id, n.room_type_id, min(n.date) AS date_min,
                       max(n.date) AS date_max,
                       array_remove(ARRAY[
                         CASE WHEN bool_or(n.available IS DISTINCT FROM o.available)
                              THEN 'availability' END,
                         CASE WHEN bool_or((n.closed, n.min_stay, n.max_stay, n.closed_to_arrival,
                                            n.closed_to_departure)
                                           IS DISTINCT FROM (o.closed, o.min_stay, o.max_stay,
                                            o.closed_to_arrival, o.closed_to_departure))
                              THEN 'restrictions' END], NULL) AS kinds
                  FROM new_rows n
                  JOIN old_rows o USING (property_id, date, room_type_id)
                 WHERE (n.available, n.closed, n.min_stay, n.max_stay, n.closed_to_arrival,
                        n.closed_to_departure)
                       IS DISTINCT FROM (o.available, o.closed, o.min_stay, o.max_stay,
                                         o.closed_to_arrival, o.closed_to_departure)
                 GROUP BY n.property_id, n.room_type_id) AS g
         WHERE cardinality(kinds) > 0
    LOOP
        INSERT INTO change_log (property_id, room_type_id, from_date, to_date, kinds)
        VALUES (c.property_id, c.room_type_id, c.date_min, c.date_max, c.kinds);
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION log_rate_plan_days_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    c record;
BEGIN
    FOR c IN
        SELECT property_id, room_type_id, rate_plan_id, date_min, date_max, kinds
          FROM (SELECT property_id, room_type_id, rate_plan_id, min(date) AS date_min,
                       max(date) AS date_max,
                       array_remove(ARRAY[
                         CASE WHEN bool_or(num_nonnulls(rate, single_rate, extra_adult_rate,
                                                        extra_child_rate) > 0) THEN 'rate' END,
                         CASE WHEN bool_or(num_nonnulls(closed, min_stay, max_stay,
                                                        closed_to_arrival, closed_to_departure) > 0)
                              THEN 'restrictions' END], NULL) AS kinds
                  FROM new_rows GROUP BY property_id, room_type_id, rate_plan_id) AS g
         WHERE cardinality(kinds) > 0
    LOOP
        INSERT INTO change_log (property_id, room_type_id, rate_plan_id, from_date, to_date, kinds)
        VALUES (c.property_id, c.room_type_id, c.rate_plan_id, c.date_min, c.date_max, c.kinds);
    END LOOP;
    RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION log_rate_plan_days_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    c record;
BEGIN
    FOR c IN
        SELECT property_id, room_type_id, rate_plan_id, date_min, date_max, kinds
          FROM (SELECT n.property_id, n.room_type_id, n.rate_plan_id, min(n.date) AS date_min,
                       max(n.date) AS date_max,
                       array_remove(ARRAY[
                         CASE WHEN bool_or((n.rate, n.single_rate, n.extra_adult_rate,
                                            n.extra_child_rate)
                                           IS DISTINCT FROM (o.rate, o.single_rate,
                                            o.extra_adult_rate, o.extra_child_rate))
                              THEN 'rate' END,
                         CASE WHEN bool_or((n.closed, n.min_stay, n.max_stay, n.closed_to_arrival,
                                            n.closed_to_departure)
                                           IS DISTINCT FROM (o.closed, o.min_stay, o.max_stay,
                                            o.closed_to_arrival, o.closed_to_departure))
                              THEN 'restrictions' END], NULL) AS kinds
                  FROM new_rows n
                  JOIN old_rows o USING (property_id, date, room_type_id, rate_plan_id)
                 WHERE (n.rate, n.single_rate, n.extra_adult_rate, n.extra_child_rate, n.closed,
                        n.min_stay, n.max_stay, n.closed_to_arrival, n.closed_to_departure)
                       IS DISTINCT FROM (o.rate, o.single_rate, o.extra_adult_rate,
                                         o.extra_child_rate, o.closed, o.min_stay, o.max_stay,
                                         o.closed_to_arrival, o.closed_to_departure)
                 GROUP BY n.property_id, n.room_type_id, n.rate_plan_id) AS g
         WHERE cardinality(kinds) > 0
    LOOP
        INSERT INTO change_log (property_id, room_type_id, rate_plan_id, from_date, to_date, kinds)
        VALUES (c.property_id, c.room_type_id, c.rate_plan_id, c.date_min, c.date_max, c.kinds);
    END LOOP;
    RETURN NULL;
END $$;
