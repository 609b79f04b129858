"""GET /ari (contract 11.1): what the service holds for one of the caller's hotels, day by day,
at the room-type and rate-plan levels as stored (not the effective combination), with the rooms
sold and, per field, the batch whose value is in force.

Provenance is exact because the apply writes it: each value's column has a `*_seq` beside it,
set by the same upsert that writes the value to the acceptance order of the item that wrote it
(batch seq x 8192 + item index, sql/migrations/0003). The batch is that order divided back; no
log is searched afterwards. The answer's JSON is written by PostgreSQL
(sql/queries/ari/readback.sql): a year of a large hotel is some 15,000 day objects."""

from __future__ import annotations

from typing import Any

from ..auth.authenticate import Caller
from ..db import Database
from ..errors import NotFound
from ..queries import queries


def read_back(db: Database, caller: Caller, request: dict[str, Any]) -> str:
    """The answer's `data`, as JSON text."""
    with db.connection() as conn:
        q = queries().ari
        hotel = q.find_mapped_hotel(conn, partner_id=caller.partner_id,
                                    environment=caller.environment,
                                    hotel_code=request["hotel_code"])
        if hotel is None:
            raise NotFound(f"hotel {request['hotel_code']!r} is not mapped for this partner")
        return q.readback_document(
            conn, mapping_id=hotel["mapping_id"], property_id=hotel["property_id"],
            partner_id=caller.partner_id, environment=caller.environment,
            hotel_code=hotel["hotel_code"], first_date=request["from_date"],
            last_date=request["to_date"], room_type_codes=request.get("room_type_codes"),
            rate_plan_codes=request.get("rate_plan_codes"))
