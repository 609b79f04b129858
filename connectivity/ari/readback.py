"""GET /ari (contract 11.1): what the service holds for one of the caller's hotels, day by day,
at the room-type and rate-plan levels as stored (not the effective combination), with the rooms
sold and, per field, the batch whose value is in force.

Provenance is exact because the apply writes it: each value's column has a `*_seq` beside it,
set by the same upsert that writes the value to the acceptance order of the item that wrote it
(batch seq x ITEM_ORDER_SPAN + item index, sql/migrations/0003). The batch is that order divided
back; no log is searched afterwards."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..auth.authenticate import Caller
from ..db import Database
from ..errors import NotFound
from ..queries import queries

# Acceptance order of an item = batch seq x ITEM_ORDER_SPAN + its index (apply.sql).
ITEM_ORDER_SPAN = 8192
# What `set_by` says of a batch the caller may not read (contract 11.1).
OTHER_PARTNER = "other_partner"
# Stored column -> the push payload's field name, which `set_by` uses.
ROOM_FIELDS = {"available": "availability", "closed": "closed", "min_stay": "min_stay",
               "max_stay": "max_stay", "closed_to_arrival": "closed_to_arrival",
               "closed_to_departure": "closed_to_departure"}
PLAN_FIELDS = {"rate": "rate", "single_rate": "single_rate",
               "extra_adult_rate": "extra_adult_rate", "extra_child_rate": "extra_child_rate",
               "closed": "closed", "min_stay": "min_stay", "max_stay": "max_stay",
               "closed_to_arrival": "closed_to_arrival",
               "closed_to_departure": "closed_to_departure"}


def read_back(db: Database, caller: Caller, request: dict[str, Any]) -> dict:
    with db.connection() as conn:
        return _read_back(conn, caller, request)


def _read_back(conn, caller: Caller, request: dict[str, Any]) -> dict:
    q = queries().ari
    first, last = request["from_date"], request["to_date"]
    hotel = q.find_mapped_hotel(conn, partner_id=caller.partner_id,
                                environment=caller.environment, hotel_code=request["hotel_code"])
    if hotel is None:
        raise NotFound(f"hotel {request['hotel_code']!r} is not mapped for this partner")
    plans = q.readback_plans(conn, mapping_id=hotel["mapping_id"],
                             room_type_codes=request.get("room_type_codes"),
                             rate_plan_codes=request.get("rate_plan_codes"))
    room_type_ids = list({p["room_type_id"] for p in plans})
    rate_plan_ids = list({p["rate_plan_id"] for p in plans if p["rate_plan_id"] is not None})
    window = {"property_id": hotel["property_id"], "first_date": first, "last_date": last}
    room_days = {(r["room_type_id"], r["date"]): r for r in q.readback_room_type_days(
        conn, room_type_ids=room_type_ids, **window)}
    plan_days = {(r["room_type_id"], r["rate_plan_id"], r["date"]): r
                 for r in q.readback_rate_plan_days(conn, room_type_ids=room_type_ids,
                                                    rate_plan_ids=rate_plan_ids, **window)}
    sold = {(r["room_type_id"], r["date"]): r["rooms_sold"]
            for r in q.rooms_sold(conn, room_type_ids=room_type_ids, **window)}
    names = _batch_names(conn, caller, [*room_days.values(), *plan_days.values()])

    dates = [first + dt.timedelta(days=i) for i in range((last - first).days + 1)]
    room_types: dict[str, dict] = {}
    for plan in plans:
        room_type_id = plan["room_type_id"]
        entry = room_types.get(plan["room_type_code"])
        if entry is None:
            entry = room_types[plan["room_type_code"]] = {
                "room_type_code": plan["room_type_code"],
                "days": [_room_day(d, room_days.get((room_type_id, d)),
                                   sold.get((room_type_id, d), 0), names) for d in dates],
                "rate_plans": []}
        if plan["rate_plan_id"] is not None:
            key = (room_type_id, plan["rate_plan_id"])
            entry["rate_plans"].append({
                "rate_plan_code": plan["rate_plan_code"], "currency": plan["currency"],
                "days": [_plan_day(d, plan_days.get((*key, d)), names) for d in dates]})
    return {"hotel_code": hotel["hotel_code"], "from_date": first, "to_date": last,
            "room_types": list(room_types.values())}


def _batch_names(conn, caller: Caller, rows: list[dict]) -> dict[int, str]:
    """Batch seq -> the batch id, or OTHER_PARTNER when the caller may not read it."""
    seqs = {value // ITEM_ORDER_SPAN for row in rows for name, value in row.items()
            if name.endswith("_seq") and value is not None}
    if not seqs:
        return {}
    return {b["seq"]: (b["id"] if (b["partner_id"], b["environment"]) == (
                caller.partner_id, caller.environment) else OTHER_PARTNER)
            for b in queries().ari.batches_by_seq(conn, seqs=list(seqs))}


def _set_by(row: dict, fields: dict[str, str], names: dict[int, str]) -> dict[str, str]:
    set_by = {}
    for column, field in fields.items():
        seq = row[column + "_seq"]
        if seq is not None and row[column] is not None:
            name = names.get(seq // ITEM_ORDER_SPAN)
            if name is not None:
                set_by[field] = name
    return set_by


def _room_day(date: dt.date, row: dict | None, rooms_sold: int, names: dict) -> dict:
    if row is None:
        return {"date": date, "availability": None, "rooms_sold": rooms_sold, "closed": None,
                "min_stay": None, "max_stay": None, "closed_to_arrival": None,
                "closed_to_departure": None, "set_by": {}}
    return {"date": date, "availability": row["available"], "rooms_sold": rooms_sold,
            "closed": row["closed"], "min_stay": row["min_stay"], "max_stay": row["max_stay"],
            "closed_to_arrival": row["closed_to_arrival"],
            "closed_to_departure": row["closed_to_departure"],
            "set_by": _set_by(row, ROOM_FIELDS, names)}


def _plan_day(date: dt.date, row: dict | None, names: dict) -> dict:
    if row is None:
        return {"date": date, "rate": None, "single_rate": None, "extra_adult_rate": None,
                "extra_child_rate": None, "closed": None, "min_stay": None, "max_stay": None,
                "closed_to_arrival": None, "closed_to_departure": None, "set_by": {}}
    day = {"date": date}
    for column in PLAN_FIELDS:
        day[column] = row[column]
    day["set_by"] = _set_by(row, PLAN_FIELDS, names)
    return day
