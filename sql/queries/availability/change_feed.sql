-- GET /availability/changes (contract 11.3). A position is (xid, id) in change_log, one per
-- origin (the node whose transaction ids the row carries: 0 on plain PostgreSQL); a page holds
-- the rows after their origin's position whose transaction is below that origin's horizon,
-- read on that node (logtail/horizons.sql): every transaction below it has committed or rolled
-- back, so no row can still appear behind the position served (docs/operations.md, "The change
-- feed"; connectivity/logtail/tail.py).

-- name: feed_pruned()
-- Each origin's pruned-through mark: a cursor at or below it for that origin is expired.
SELECT origin, through_xid::text AS through_xid FROM change_log_pruned;

-- name: feed_page(partner_id, environment, after_xids, after_ids, horizons, low_xid, high_xid, page_size)
-- Up to page_size + 1 of the caller's changes after their origin's position and below their
-- origin's horizon, in (xid, id) order: whatever the mix of origins, what a page serves of one
-- origin is then the start of that origin's rows. The arrays are indexed by origin + 1. low_xid
-- (the lowest position) and high_xid (the highest horizon) bound the scan of the (xid, id)
-- index; the per-origin bounds are exact. Only hotels mapped to the caller in its environment; a
-- paused mapping shows its distribution change and nothing else; a room type or rate plan the
-- caller does not map is not shown.
SELECT c.id, c.origin, c.xid::text AS xid,
       -- The change as the answer shows it, written here: no per-field decoding in Python.
       json_build_object('hotel_code', pp.hotel_code, 'room_type_code', prt.room_type_code,
                         'rate_plan_code', prp.rate_plan_code, 'from_date', c.from_date,
                         'to_date', c.to_date, 'kinds', c.kinds,
                         'changed_at', c.changed_at)::text AS change
  FROM change_log c
  JOIN partner_properties pp
    ON pp.property_id = c.property_id AND pp.partner_id = :partner_id
   AND pp.environment = :environment
  LEFT JOIN partner_room_types prt
    ON prt.mapping_id = pp.id AND prt.room_type_id = c.room_type_id
  LEFT JOIN partner_rate_plans prp
    ON prp.mapping_id = pp.id AND prp.rate_plan_id = c.rate_plan_id
 WHERE c.xid >= :low_xid::text::xid8 AND c.xid < :high_xid::text::xid8
   AND (c.xid, c.id) > ((:after_xids::text[])[c.origin + 1]::xid8,
                        (:after_ids::bigint[])[c.origin + 1])
   AND c.xid < (:horizons::text[])[c.origin + 1]::xid8
   AND (c.partner_id IS NULL OR c.partner_id = :partner_id)
   AND (pp.distribution_active OR c.kinds = ARRAY['distribution'])
   AND (c.room_type_id IS NULL OR prt.room_type_id IS NOT NULL)
   AND (c.rate_plan_id IS NULL OR prp.rate_plan_id IS NOT NULL)
 ORDER BY c.xid, c.id
 LIMIT :page_size + 1;
