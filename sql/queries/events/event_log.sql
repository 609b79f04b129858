-- The event log (contract 12.2; connectivity/events/log.py). One log per partner and
-- environment, read as every gapless log is (connectivity/logtail/tail.py): positions (xid, id)
-- per origin, below each origin's horizon.

-- name: record_event(property_id, partner_id, environment, event_id, type, data)!
-- One event, in the caller's transaction, beside its cause: VALUES routed to the property's
-- shard under Citus (one phase).
INSERT INTO event_log (property_id, partner_id, environment, event_id, type, data)
VALUES (:property_id, :partner_id, :environment, :event_id, :type, :data::jsonb);

-- name: event_page(partner_id, environment, types, after_xids, after_ids, horizons, low_xid, high_xid, page_size)
-- Up to page_size + 1 of the partner's events of the given types after their origin's position
-- and below their origin's horizon, in (xid, id) order (the arrays are indexed by origin + 1;
-- low_xid and high_xid bound the scan of the index, the per-origin bounds are exact). Each
-- event as the answer shows it, written here.
SELECT e.id, e.origin, e.xid::text AS xid, e.event_id, e.type,
       json_build_object('event_id', e.event_id, 'type', e.type, 'created_at', e.created_at,
                         'data', e.data)::text AS event
  FROM event_log e
 WHERE e.partner_id = :partner_id AND e.environment = :environment
   AND e.xid >= :low_xid::text::xid8 AND e.xid < :high_xid::text::xid8
   AND (e.xid, e.id) > ((:after_xids::text[])[e.origin + 1]::xid8,
                        (:after_ids::bigint[])[e.origin + 1])
   AND e.xid < (:horizons::text[])[e.origin + 1]::xid8
   AND e.type = ANY(:types::text[])
 ORDER BY e.xid, e.id
 LIMIT :page_size + 1;

-- name: event_log_pruned()
-- Each origin's pruned-through mark: a position at or below it for that origin is expired.
SELECT origin, through_xid::text AS through_xid FROM event_log_pruned;
