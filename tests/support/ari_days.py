"""ARI written straight into the day tables, as the ARI push will once it exists: a per-field
upsert keyed by the property's internal codes. Only the fields given are written."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from psycopg import sql

ROOM_FIELDS = {"available", "closed", "min_stay", "max_stay", "closed_to_arrival",
               "closed_to_departure"}
PLAN_FIELDS = ROOM_FIELDS - {"available"} | {"rate", "single_rate", "extra_adult_rate",
                                               "extra_child_rate"}


def stay_dates(start: dt.date, nights: int) -> list[dt.date]:
    return [start + dt.timedelta(days=i) for i in range(nights)]


def _upsert(conn, table: str, keys: dict, dates: Iterable[dt.date], fields: dict) -> None:
    columns = [*keys, "date", *fields]
    statement = sql.SQL(
        "INSERT INTO {table} ({cols}) VALUES ({vals}) ON CONFLICT ({pk}) DO UPDATE SET {sets}"
    ).format(
        table=sql.Identifier(table),
        cols=sql.SQL(", ").join(map(sql.Identifier, columns)),
        vals=sql.SQL(", ").join(sql.Placeholder() * len(columns)),
        pk=sql.SQL(", ").join(map(sql.Identifier, [*keys, "date"])),
        sets=sql.SQL(", ").join(sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(f))
                                for f in fields) if fields else sql.SQL("date = EXCLUDED.date"))
    with conn.cursor() as cur:
        cur.executemany(statement, [(*keys.values(), d, *fields.values()) for d in dates])


def _ids(conn, property_code: str, room_type_code: str, rate_plan_code: str | None = None):
    row = conn.execute(
        "SELECT p.id AS property_id, rt.id AS room_type_id, rp.id AS rate_plan_id FROM properties p JOIN room_types rt ON rt.property_id = p.id "
        "LEFT JOIN rate_plans rp ON rp.property_id = p.id AND rp.code = %s "
        "WHERE p.code = %s AND rt.code = %s", (rate_plan_code, property_code, room_type_code)
    ).fetchone()
    assert row and (rate_plan_code is None or row["rate_plan_id"]), (
        property_code, room_type_code, rate_plan_code)
    return row["property_id"], row["room_type_id"], row["rate_plan_id"]


def set_room_days(db, property_code: str, room_type_code: str, dates: Iterable[dt.date],
                  **fields) -> None:
    assert set(fields) <= ROOM_FIELDS, fields

    def write(conn):
        property_id, room_type_id, _ = _ids(conn, property_code, room_type_code)
        _upsert(conn, "room_type_days", {"property_id": property_id,
                                         "room_type_id": room_type_id}, dates, fields)
    db.run(write)


def set_plan_days(db, property_code: str, room_type_code: str, rate_plan_code: str,
                  dates: Iterable[dt.date], **fields) -> None:
    assert set(fields) <= PLAN_FIELDS, fields

    def write(conn):
        property_id, room_type_id, rate_plan_id = _ids(conn, property_code, room_type_code,
                                                       rate_plan_code)
        _upsert(conn, "rate_plan_days", {"property_id": property_id,
                                         "room_type_id": room_type_id,
                                         "rate_plan_id": rate_plan_id}, dates, fields)
    db.run(write)
