"""Mapping use cases: what the calling partner may sell, in its own codes. A property whose
distribution is paused is absent, exactly as an unmapped one."""

from __future__ import annotations

from connectivity.auth.authenticate import Caller
from connectivity.store.replica import Reads
from connectivity.web.errors import NotFound
from connectivity.store.queries import queries


def list_hotels(db: Reads, caller: Caller) -> dict:
    with db.connection() as conn:
        rows = queries().mapping.list_active_hotels(
            conn, partner_id=caller.partner_id, environment=caller.environment)
    return {"hotels": rows}


def hotel_detail(db: Reads, caller: Caller, hotel_code: str) -> dict:
    q = queries().mapping
    with db.connection() as conn:
        hotel = q.find_active_hotel(conn, partner_id=caller.partner_id,
                                    environment=caller.environment, hotel_code=hotel_code)
        if hotel is None:
            raise NotFound(f"hotel {hotel_code!r} is not mapped and active for this partner")
        room_types = q.mapped_room_types(conn, mapping_id=hotel["mapping_id"])
        plans = q.mapped_rate_plans(conn, mapping_id=hotel["mapping_id"])
    return {"hotel": {
        **{k: hotel[k] for k in ("hotel_code", "name", "country", "currency", "timezone",
                                 "max_child_age")},
        "room_types": room_types,
        "rate_plans": [{
            "rate_plan_code": p["rate_plan_code"], "name": p["name"],
            "board_type": p["board_type"], "currency": p["currency"],
            "room_type_codes": p["room_type_codes"],
            "occupancy": {k: p[k] for k in ("base_adults", "max_adults", "max_children",
                                            "max_occupancy")},
            "cancellation_policy": p["cancellation_policy"],
        } for p in plans],
    }}
