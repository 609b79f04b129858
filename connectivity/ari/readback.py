"""GET /ari (contract 11.1): what the service holds for one of the caller's hotels, day by day,
at the room-type and rate-plan levels as stored (not the effective combination), with the rooms
sold and, per field, the batch whose value is in force.

Provenance is exact because the apply writes it: each value's column has a `*_seq` beside it,
set by the same upsert that writes the value to the acceptance order of the item that wrote it
(batch seq x 8192 + item index: the functions of sql/migrations/0016). The batch is that order
divided back; no log is searched afterwards.

The rows are read by a few plain statements in one snapshot (sql/queries/ari/readback.sql) and
the answer's JSON is written here (readback_document.py): a year of a large hotel is some
15,000 day objects, which cost PostgreSQL 60-90 ms of CPU to write as JSON."""

from __future__ import annotations

from typing import Any

from psycopg.rows import tuple_row

from connectivity.auth.authenticate import Caller
from connectivity.store.database import Database
from connectivity.mapping.hotel_code import mapped_hotel
from connectivity.store.queries import queries
from connectivity.ari.readback_document import named_batch_seqs, readback_document, without_cycle_collection


def _rows(conn, query, **params) -> list[tuple]:
    # Tuples, not the pool's dict rows: a dict per row of 15,000 costs more than the JSON; and
    # binary, which psycopg reads faster (6.2 against 7.5 ms for a hotel-year).
    with conn.cursor(row_factory=tuple_row, binary=True) as cur:
        return cur.execute(query.sql, params).fetchall()


def read_back(db: Database, caller: Caller, request: dict[str, Any]) -> bytes:
    """The answer's `data`, as JSON."""
    with without_cycle_collection():
        with db.snapshot() as conn:
            rows = _read_rows(conn, caller, request)
        # Built once the connection is back in the pool.
        return readback_document(**rows)


def _read_rows(conn, caller: Caller, request: dict[str, Any]) -> dict[str, Any]:
    q = queries().ari
    first, last = request["from_date"], request["to_date"]
    hotel = mapped_hotel(conn, caller, request["hotel_code"])
    days = {"property_id": hotel["property_id"], "first_date": first, "last_date": last}
    room_rows = _rows(conn, q.readback_room_days, **days)
    plan_rows = _rows(conn, q.readback_plan_days, **days)
    seqs = named_batch_seqs(room_rows, plan_rows)
    return {
        "hotel_code": hotel["hotel_code"], "first_date": first, "last_date": last,
        "levels": q.readback_levels(conn, mapping_id=hotel["mapping_id"],
                                    room_type_codes=request.get("room_type_codes"),
                                    rate_plan_codes=request.get("rate_plan_codes")),
        "room_rows": room_rows, "plan_rows": plan_rows,
        "sold_rows": _rows(conn, q.readback_rooms_sold, **days),
        "names": {row["seq"]: row["name"] for row in q.readback_batch_names(
            conn, property_id=hotel["property_id"], partner_id=caller.partner_id,
            environment=caller.environment, seqs=seqs)} if seqs else {}}
