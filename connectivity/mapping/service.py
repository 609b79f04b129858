"""Mapping use cases: what the calling partner may sell, in its own codes. A property whose
distribution is paused is absent, exactly as an unmapped one."""

from __future__ import annotations

from connectivity.auth.authenticate import Caller
from connectivity.store.replica import Reads
from connectivity.mapping.hotel_code import selling_hotel
from connectivity.store.queries import queries


def list_hotels(db: Reads, caller: Caller) -> dict:
    with db.connection() as conn:
        rows = queries().mapping.list_active_hotels(
            conn, partner_id=caller.partner_id, environment=caller.environment)
    return {"hotels": rows}


def hotel_detail(db: Reads, caller: Caller, hotel_code: str) -> dict:
    q = queries().mapping
    with db.connection() as conn:
        hotel = selling_hotel(conn, caller, hotel_code)
        room_types = q.mapped_room_types(conn, mapping_id=hotel["mapping_id"])
        plans = q.mapped_rate_plans(conn, mapping_id=hotel["mapping_id"])
    return {"hotel": {
        **{k: hotel[k] for k in ("hotel_code", "name", "country", "currency", "timezone",
                                 "max_child_age", "receives_bookings")},
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
