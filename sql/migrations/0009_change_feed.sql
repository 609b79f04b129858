-- 0009_change_feed: the log behind GET /availability/changes (contract 11.3), written by the
-- transactions that change what resellers cache.
-- Locks: creates a table; CREATE TRIGGER takes SHARE ROW EXCLUSIVE on room_type_days,
-- rate_plan_days and partner_properties for an instant (catalogue-only; under the runner's 5 s
-- lock_timeout, bookings and applies wait at most that long).
--
-- Each row records the writing transaction's id (pg_current_xact_id()). A reader pages in
-- (xid, id) order and only up to pg_snapshot_xmin of its own snapshot: every transaction below
-- that has finished, so no row can appear later behind a position already served, whatever the
-- order in which concurrent transactions commit (docs/operations.md, "The change feed").
--
-- Day-table changes are logged by statement triggers over the transition tables: every writer
-- (ARI apply, bookings, pushed reservations and whatever comes later) is covered by the very
-- statement that writes, one row per (property, room type, rate plan) touched, its dates as one
-- range (a range may cover dates that did not change: the feed is at-least-once).

CREATE TABLE change_log (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    xid           xid8 NOT NULL DEFAULT pg_current_xact_id(),
    property_id   bigint NOT NULL REFERENCES properties(id),
    -- Set only for a change of one partner's mapping (distribution): others do not see it.
    partner_id    bigint REFERENCES partners(id),
    room_type_id  bigint,
    rate_plan_id  bigint,
    from_date     date,
    to_date       date,
    kinds         text[] NOT NULL CHECK (cardinality(kinds) >= 1 AND kinds <@ ARRAY[
                      'availability', 'rate', 'restrictions', 'distribution', 'content']),
    changed_at    timestamptz NOT NULL DEFAULT now(),
    CHECK (rate_plan_id IS NULL OR room_type_id IS NOT NULL),
    CHECK ((from_date IS NULL) = (to_date IS NULL) AND from_date <= to_date),
    CHECK ((partner_id IS NOT NULL) = (kinds = ARRAY['distribution']))
);
-- The feed's read order, and the pruning's scan by age.
CREATE INDEX change_log_position_idx ON change_log (xid, id);
CREATE INDEX change_log_changed_at_idx ON change_log (changed_at);

-- Cursors at or below this transaction id may have lost rows to pruning: 410 cursor_expired.
CREATE TABLE change_log_pruned (
    only_row      boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    through_xid   xid8 NOT NULL,
    pruned_at     timestamptz NOT NULL DEFAULT now()
);

CREATE FUNCTION log_room_type_days_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO change_log (property_id, room_type_id, from_date, to_date, kinds)
    SELECT property_id, room_type_id, date_min, date_max, kinds
      FROM (SELECT property_id, room_type_id, min(date) AS date_min, max(date) AS date_max,
                   array_remove(ARRAY[
                     CASE WHEN bool_or(available IS NOT NULL) THEN 'availability' END,
                     CASE WHEN bool_or(num_nonnulls(closed, min_stay, max_stay,
                                                    closed_to_arrival, closed_to_departure) > 0)
                          THEN 'restrictions' END], NULL) AS kinds
              FROM new_rows GROUP BY property_id, room_type_id) AS g
     WHERE cardinality(kinds) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION log_room_type_days_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO change_log (property_id, room_type_id, from_date, to_date, kinds)
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
     WHERE cardinality(kinds) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION log_rate_plan_days_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO change_log (property_id, room_type_id, rate_plan_id, from_date, to_date, kinds)
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
     WHERE cardinality(kinds) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION log_rate_plan_days_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO change_log (property_id, room_type_id, rate_plan_id, from_date, to_date, kinds)
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
     WHERE cardinality(kinds) > 0;
    RETURN NULL;
END $$;

-- Transition tables allow one event per trigger: an upsert fires both (ON CONFLICT's updates
-- are in the UPDATE trigger's tables, its inserts in the INSERT trigger's).
CREATE TRIGGER room_type_days_inserted_log AFTER INSERT ON room_type_days
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION log_room_type_days_inserted();
CREATE TRIGGER room_type_days_updated_log AFTER UPDATE ON room_type_days
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION log_room_type_days_updated();
CREATE TRIGGER rate_plan_days_inserted_log AFTER INSERT ON rate_plan_days
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION log_rate_plan_days_inserted();
CREATE TRIGGER rate_plan_days_updated_log AFTER UPDATE ON rate_plan_days
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION log_rate_plan_days_updated();

-- A pause or a resume concerns one partner's mapping.
CREATE FUNCTION log_distribution_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO change_log (property_id, partner_id, kinds)
    VALUES (NEW.property_id, NEW.partner_id, ARRAY['distribution']);
    RETURN NULL;
END $$;

CREATE TRIGGER partner_properties_distribution_log
    AFTER UPDATE OF distribution_active ON partner_properties
    FOR EACH ROW WHEN (OLD.distribution_active IS DISTINCT FROM NEW.distribution_active)
    EXECUTE FUNCTION log_distribution_changed();
