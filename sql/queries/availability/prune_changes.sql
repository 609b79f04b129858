-- The change feed's retention (`flask --app app changes prune`,
-- connectivity/availability/changes_retention.py).

-- name: prune_changes(retention_days, max_count)
-- Deletes up to max_count changes older than retention_days, and raises each origin's pruned
-- mark to the highest transaction id of that origin deleted: a cursor at or below it for that
-- origin is expired.
WITH old AS (
    DELETE FROM change_log
     WHERE id IN (SELECT id FROM change_log
                   WHERE changed_at < now() - make_interval(days => :retention_days)
                   ORDER BY changed_at LIMIT :max_count)
    RETURNING origin, xid
),
mark AS (
    INSERT INTO change_log_pruned (origin, through_xid)
    SELECT origin, max(xid) FROM old GROUP BY origin
    ON CONFLICT (origin) DO UPDATE
       SET through_xid = greatest(change_log_pruned.through_xid, EXCLUDED.through_xid),
           pruned_at = EXCLUDED.pruned_at
)
SELECT count(*) AS pruned FROM old;
