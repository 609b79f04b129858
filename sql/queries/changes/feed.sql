-- GET /availability/changes (contract 11.3). A position is (xid, id) in change_log; a page
-- holds the rows after it whose transaction is below the reader's horizon, the xmin of its
-- snapshot: every transaction below it has committed or rolled back, so no row can still
-- appear behind the position served (docs/operations.md, "The change feed").

-- name: feed_horizon()^
-- Where a new reader starts: everything below is final.
SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
       (SELECT through_xid::text FROM change_log_pruned) AS pruned_through;

-- name: feed_page(partner_id, environment, after_xid, after_id, page_size)
-- Up to page_size + 1 of the caller's changes after the position, oldest first, in its codes,
-- with the horizon of this statement's snapshot on every row (one row with NULLs when there
-- is no change). Only hotels mapped to the caller in its environment; a paused mapping shows
-- its distribution change and nothing else; a room type or rate plan the caller does not map
-- is not shown.
WITH h AS MATERIALIZED (
    SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon
),
page AS (
    SELECT c.id, c.xid, pp.hotel_code, prt.room_type_code, prp.rate_plan_code, c.from_date,
           c.to_date, c.kinds, c.changed_at
      FROM change_log c
      JOIN partner_properties pp
        ON pp.property_id = c.property_id AND pp.partner_id = :partner_id
       AND pp.environment = :environment
      LEFT JOIN partner_room_types prt
        ON prt.mapping_id = pp.id AND prt.room_type_id = c.room_type_id
      LEFT JOIN partner_rate_plans prp
        ON prp.mapping_id = pp.id AND prp.rate_plan_id = c.rate_plan_id
     WHERE (c.xid, c.id) > (:after_xid::text::xid8, :after_id::bigint)
       AND c.xid < (SELECT horizon FROM h)
       AND (c.partner_id IS NULL OR c.partner_id = :partner_id)
       AND (pp.distribution_active OR c.kinds = ARRAY['distribution'])
       AND (c.room_type_id IS NULL OR prt.room_type_id IS NOT NULL)
       AND (c.rate_plan_id IS NULL OR prp.rate_plan_id IS NOT NULL)
     ORDER BY c.xid, c.id
     LIMIT :page_size + 1
)
SELECT h.horizon::text AS horizon, (SELECT through_xid::text FROM change_log_pruned)
       AS pruned_through, p.id, p.xid::text AS xid,
       -- The change as the answer shows it, written here: no per-field decoding in Python.
       json_build_object('hotel_code', p.hotel_code, 'room_type_code', p.room_type_code,
                         'rate_plan_code', p.rate_plan_code, 'from_date', p.from_date,
                         'to_date', p.to_date, 'kinds', p.kinds,
                         'changed_at', p.changed_at)::text AS change
  FROM h LEFT JOIN page p ON true
 ORDER BY p.xid, p.id;

-- name: record_distribution_change(property_id, partner_id)!
-- A pause or resume of one partner's mapping: only that partner sees it.
INSERT INTO change_log (property_id, partner_id, kinds)
VALUES (:property_id, :partner_id, ARRAY['distribution']);

-- name: record_content_change(property_id)!
-- A catalogue load changed the property's room types, rate plans, their policies or a
-- partner's codes for them.
INSERT INTO change_log (property_id, kinds) VALUES (:property_id, ARRAY['content']);

-- name: content_digest(property_id)$
-- What a catalogue load can change of a property that resellers cache (content), as one
-- digest: compared before and after the load.
SELECT md5(concat_ws('|',
    (SELECT concat_ws(',', name, country, timezone, currency, max_child_age)
       FROM properties WHERE id = :property_id),
    (SELECT string_agg(concat_ws(',', code, name, max_occupancy), ';' ORDER BY code)
       FROM room_types WHERE property_id = :property_id),
    (SELECT string_agg(concat_ws(',', code, name, board_type, currency, base_adults,
                                 max_adults, max_children, max_occupancy,
                                 allowed_nationalities::text, blocked_nationalities::text,
                                 cancellation_policy::text), ';' ORDER BY code)
       FROM rate_plans WHERE property_id = :property_id),
    (SELECT string_agg(concat_ws(',', rate_plan_id, room_type_id), ';'
                       ORDER BY rate_plan_id, room_type_id)
       FROM rate_plan_room_types WHERE property_id = :property_id),
    (SELECT string_agg(concat_ws(',', pp.id, pp.hotel_code), ';' ORDER BY pp.id)
       FROM partner_properties pp WHERE pp.property_id = :property_id),
    (SELECT string_agg(concat_ws(',', mapping_id, room_type_id, room_type_code), ';'
                       ORDER BY mapping_id, room_type_id)
       FROM partner_room_types WHERE property_id = :property_id),
    (SELECT string_agg(concat_ws(',', mapping_id, rate_plan_id, rate_plan_code), ';'
                       ORDER BY mapping_id, rate_plan_id)
       FROM partner_rate_plans WHERE property_id = :property_id)));

-- name: prune_changes(retention_days, max_count)
-- Deletes up to max_count changes older than retention_days, and raises the pruned mark to
-- the highest transaction id deleted: a cursor at or below it is expired.
WITH old AS (
    DELETE FROM change_log
     WHERE id IN (SELECT id FROM change_log
                   WHERE changed_at < now() - make_interval(days => :retention_days)
                   ORDER BY changed_at LIMIT :max_count)
    RETURNING xid
),
mark AS (
    INSERT INTO change_log_pruned (through_xid)
    SELECT max(xid) FROM old HAVING max(xid) IS NOT NULL
    ON CONFLICT (only_row) DO UPDATE
       SET through_xid = greatest(change_log_pruned.through_xid, EXCLUDED.through_xid),
           pruned_at = EXCLUDED.pruned_at
)
SELECT count(*) AS pruned FROM old;
