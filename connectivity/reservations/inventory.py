"""Inventory held by a pushed reservation: taken as far as it goes, released exactly."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping

from psycopg.types.json import Jsonb

from connectivity.store.queries import queries
from connectivity.store.read_fence import name_changed
from connectivity.pricing.stay_nights import stay_nights


def rooms_wanted(state: Mapping, room_types: Mapping[str, int]) -> list[dict]:
    """Rooms per (mapped room type, night) of a state; unmapped room types want nothing here
    (they are reported as such)."""
    nights = stay_nights(dt.date.fromisoformat(state["check_in"]),
                         dt.date.fromisoformat(state["check_out"]))
    return [{"room_type_id": room_types[room["room_type_code"]], "date": night.isoformat(),
             "rooms": room["quantity"]}
            for room in state["rooms"] if room["room_type_code"] in room_types
            for night in nights]


def take_inventory(conn, reservation_id: int, version: int, property_id: int,
                   wanted: list[dict]) -> list[dict]:
    if not wanted:
        return []
    name_changed(property_id)  # its inventory: the read fence's move names it
    # Locked by a statement of its own first: within take_inventory's single statement, the
    # value its FOR UPDATE read and the row its UPDATE changes can differ when another
    # transaction (a booking, a release) commits in between, and the subtraction would go below
    # zero (a 500 from the CHECK; tests/reservations/test_take_race.py reproduces the race).
    # Once locked here, the next statement's snapshot sees the latest committed values and
    # nothing else can change them.
    lock_nights(conn, reservation_id, property_id, wanted)
    rooms = Counter()
    for want in wanted:
        rooms[(want["room_type_id"], dt.date.fromisoformat(want["date"]))] += want["rooms"]
    q = queries().reservations
    taken = {(row["room_type_id"], row["date"]): row["taken"] for row in q.take_inventory(
        conn, property_id=property_id, wanted=Jsonb(
            [{"room_type_id": room_type_id, "date": date.isoformat(), "rooms": n}
             for (room_type_id, date), n in rooms.items()]))}
    nights = [{"room_type_id": room_type_id, "date": date, "wanted": n,
               "taken": taken.get((room_type_id, date), 0)}
              for (room_type_id, date), n in sorted(rooms.items(), key=lambda r: r[0][::-1])]
    q.record_nights(conn, [{**night, "reservation_id": reservation_id, "version": version,
                            "property_id": property_id} for night in nights])
    return nights


def release_inventory(conn, property_id: int, reservation_id: int) -> list[dict]:
    name_changed(property_id)
    return queries().reservations.release_inventory(conn, property_id=property_id,
                                                    reservation_id=reservation_id)


def lock_nights(conn, reservation_id: int, property_id: int, wanted: list[dict]) -> None:
    queries().reservations.lock_nights(conn, reservation_id=reservation_id,
                                       property_id=property_id, wanted=Jsonb(wanted))
