-- The event log's retention (`flask --app app events prune`,
-- connectivity/events/retention.py).

-- name: prune_events(retention_days, max_count)
-- Deletes up to max_count events older than retention_days, and raises each origin's pruned
-- mark to the highest transaction id of that origin deleted: a position at or below it for
-- that origin is expired (410), never silently skipped.
WITH old AS (
    DELETE FROM event_log
     WHERE (property_id, id) IN (SELECT property_id, id FROM event_log
                                  WHERE created_at < now() - make_interval(days => :retention_days)
                                  ORDER BY created_at LIMIT :max_count)
    RETURNING origin, xid
),
mark AS (
    INSERT INTO event_log_pruned (origin, through_xid)
    SELECT origin, max(xid) FROM old GROUP BY origin
    ON CONFLICT (origin) DO UPDATE
       SET through_xid = greatest(event_log_pruned.through_xid, EXCLUDED.through_xid),
           pruned_at = EXCLUDED.pruned_at
)
SELECT count(*) AS pruned FROM old;
