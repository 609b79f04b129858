-- What `flask --app app catalog load` records in the change feed (connectivity/operator/
-- catalog.py): a digest of each touched property's content before and after the load, and a
-- `content` change where the two differ.

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
    -- By its plans (the primary key leads with rate_plan_id; no index leads with the property):
    -- by property_id every load of a hotel read the whole table, a 10,000-hotel catalogue
    -- load ever slower, hotel after hotel.
    (SELECT string_agg(concat_ws(',', rate_plan_id, room_type_id), ';'
                       ORDER BY rate_plan_id, room_type_id)
       FROM rate_plan_room_types
      WHERE rate_plan_id = ANY(ARRAY(SELECT id FROM rate_plans
                                      WHERE property_id = :property_id))
        AND property_id = :property_id),
    (SELECT string_agg(concat_ws(',', pp.id, pp.hotel_code), ';' ORDER BY pp.id)
       FROM partner_properties pp WHERE pp.property_id = :property_id),
    (SELECT string_agg(concat_ws(',', mapping_id, room_type_id, room_type_code), ';'
                       ORDER BY mapping_id, room_type_id)
       FROM partner_room_types WHERE property_id = :property_id),
    (SELECT string_agg(concat_ws(',', mapping_id, rate_plan_id, rate_plan_code), ';'
                       ORDER BY mapping_id, rate_plan_id)
       FROM partner_rate_plans WHERE property_id = :property_id)));
