"""The answer of GET /ari (contract 11.1) written from the plain rows of
sql/queries/ari/readback.sql: every date of the range for every level listed, `null` where no
row is, the rooms sold, and `set_by` from each value's acceptance order. Pure: no Flask, no
psycopg.

Written with orjson, whose encoding of a hotel-year's day objects is the small part of the work:
building the dicts costs more (docs/benchmarks-history.md, "Read-back and dry run"). Amounts
arrive as PostgreSQL's exact decimal text and go into the JSON as they are (orjson.Fragment):
120.50 stays 120.50, never the float nearest to it. Dates are written by orjson as YYYY-MM-DD."""

from __future__ import annotations

import datetime as dt
import gc
from contextlib import contextmanager
from typing import Iterable, Iterator, Sequence

import orjson

ROOM_FIELDS = ("availability", "closed", "min_stay", "max_stay", "closed_to_arrival",
               "closed_to_departure")
PLAN_FIELDS = ("rate", "single_rate", "extra_adult_rate", "extra_child_rate", "closed",
               "min_stay", "max_stay", "closed_to_arrival", "closed_to_departure")

# Rows of readback_room_days / readback_plan_days: the key, the day (days after the range's
# first date), the values in *_FIELDS order, then `batches`: per value the seq of the batch
# that wrote it, comma-separated (NULL when no batch wrote any).


@contextmanager
def without_cycle_collection() -> Iterator[None]:
    """The cyclic garbage collector held off while a hotel-year's rows and day dicts are made:
    they hold no reference cycles (refcounting frees them), but some 30,000 new tuples and dicts
    set the collector off dozens of times, and its older generations walk the web process's
    whole heap, a large share of a read-back's CPU. Process-wide, so threads overlapping here
    may keep it off a little longer; it is switched back on by whichever started from on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def named_batch_seqs(room_rows: Iterable[Sequence], plan_rows: Iterable[Sequence]) -> list[int]:
    """The distinct batch seqs the rows' values name: the only batches set_by looks up."""
    lists = {row[-1] for rows in (room_rows, plan_rows) for row in rows}
    lists.discard(None)
    return sorted({int(seq) for batches in lists for seq in batches.split(",") if seq})


class _SetBy:
    """set_by per `batches` list, worked out once per distinct list (one dict shared by every
    day that has it: the answer is only encoded, never changed)."""

    def __init__(self, fields: tuple[str, ...], names: dict[int, str]):
        self.fields, self.names, self.known = fields, names, {}

    def __call__(self, batches: str) -> dict[str, str]:
        set_by = self.known.get(batches)
        if set_by is None:
            # A field is named when it has a value written by a batch that is there to name.
            set_by = {}
            for field, seq in zip(self.fields, batches.split(",")):
                name = self.names.get(int(seq)) if seq else None
                if name is not None:
                    set_by[field] = name
            self.known[batches] = set_by
        return set_by


def _by_day(rows: Iterable[Sequence], key: slice, day: int, count: int) -> dict:
    """{key: [row or None per day of the range]}."""
    levels: dict = {}
    for row in rows:
        k = row[key]
        if k not in levels:
            levels[k] = [None] * count
        levels[k][row[day]] = row
    return levels


def _room_days(dates: list[dt.date], rows: list, sold: list | None,
               set_by: _SetBy) -> list[dict]:
    days = []
    for n, date in enumerate(dates):
        row = rows[n]
        rooms_sold = sold[n] if sold else 0
        if row is None:
            days.append({"date": date, "availability": None, "rooms_sold": rooms_sold,
                         "closed": None, "min_stay": None, "max_stay": None,
                         "closed_to_arrival": None, "closed_to_departure": None, "set_by": {}})
            continue
        days.append({"date": date, "availability": row[2], "rooms_sold": rooms_sold,
                     "closed": row[3], "min_stay": row[4], "max_stay": row[5],
                     "closed_to_arrival": row[6], "closed_to_departure": row[7],
                     "set_by": {} if row[8] is None else set_by(row[8])})
    return days


def _plan_days(dates: list[dt.date], rows: list, set_by: _SetBy) -> list[dict]:
    days = []
    amount = orjson.Fragment
    for date, row in zip(dates, rows):
        if row is None:
            days.append({"date": date, "rate": None, "single_rate": None,
                         "extra_adult_rate": None, "extra_child_rate": None, "closed": None,
                         "min_stay": None, "max_stay": None, "closed_to_arrival": None,
                         "closed_to_departure": None, "set_by": {}})
            continue
        rate, single, adult, child = row[3], row[4], row[5], row[6]
        days.append({"date": date,
                     "rate": None if rate is None else amount(rate),
                     "single_rate": None if single is None else amount(single),
                     "extra_adult_rate": None if adult is None else amount(adult),
                     "extra_child_rate": None if child is None else amount(child),
                     "closed": row[7], "min_stay": row[8], "max_stay": row[9],
                     "closed_to_arrival": row[10], "closed_to_departure": row[11],
                     "set_by": {} if row[12] is None else set_by(row[12])})
    return days


def readback_document(hotel_code: str, first_date: dt.date, last_date: dt.date,
                      levels: Iterable[dict], room_rows: Iterable[Sequence],
                      plan_rows: Iterable[Sequence], sold_rows: Iterable[Sequence],
                      names: dict[int, str]) -> bytes:
    """The answer's `data` as JSON. `levels`: readback_levels' rows (room types in order, each
    with its rate plans in order, a NULL plan for none); `names`: batch seq -> set_by name."""
    count = (last_date - first_date).days + 1
    dates = [first_date + dt.timedelta(days=n) for n in range(count)]
    rooms = _by_day(room_rows, slice(0, 1), 1, count)
    plans = _by_day(plan_rows, slice(0, 2), 2, count)
    sold: dict[int, list] = {}
    for room_type_id, day, rooms_sold in sold_rows:
        sold.setdefault(room_type_id, [0] * count)[day] = rooms_sold
    empty = [None] * count
    room_set_by, plan_set_by = _SetBy(ROOM_FIELDS, names), _SetBy(PLAN_FIELDS, names)

    room_types: list[dict] = []
    for level in levels:
        room_type_id = level["room_type_id"]
        if not room_types or room_types[-1]["room_type_code"] != level["room_type_code"]:
            room_types.append({
                "room_type_code": level["room_type_code"],
                "days": _room_days(dates, rooms.get((room_type_id,), empty),
                                   sold.get(room_type_id), room_set_by),
                "rate_plans": []})
        if level["rate_plan_id"] is not None:
            room_types[-1]["rate_plans"].append({
                "rate_plan_code": level["rate_plan_code"], "currency": level["currency"],
                "days": _plan_days(dates, plans.get((room_type_id, level["rate_plan_id"]),
                                                    empty), plan_set_by)})
    return orjson.dumps({"hotel_code": hotel_code, "from_date": first_date,
                         "to_date": last_date, "room_types": room_types})
