-- The partner's codes of one mapping, against which a pushed reservation's rooms are checked
-- (they are kept whatever they name).

-- name: mapped_room_types_for_push(mapping_id)
SELECT room_type_code, room_type_id FROM partner_room_types WHERE mapping_id = :mapping_id;

-- name: mapped_rate_plan_codes_for_push(mapping_id)
SELECT rate_plan_code FROM partner_rate_plans WHERE mapping_id = :mapping_id;
