"""Applying accepted batches (the worker's use case): every item judged against the partner's
mapping, the rows that can apply written in bulk, each batch's outcome recorded.

A job names one batch, but a channel manager sends a stream of small batches per hotel, and
most of a small batch's cost is the transaction around it. So the job applies its batch's hotel
group: the hotel's unfinished batches, oldest first, as many as wait behind the first up to
GROUP_MAX_BATCHES / GROUP_MAX_ITEMS, in ONE transaction, each batch staged, judged and finished
with its own outcome. The jobs of the other batches of the group then find them finished and do
nothing.

Guarantees, all from PostgreSQL:
- acceptance order per hotel: a transaction applies a hotel's batches only while it holds the
  hotel's advisory lock (lock_hotel), and always takes the oldest unfinished ones first;
- exactly once: a batch is claimed only while unfinished, under its row lock, and finished in
  the same transaction; a run killed midway leaves nothing behind (PostgreSQL rolls it back) and
  its batches unfinished, for the next run to apply whole."""

from __future__ import annotations

from psycopg.types.json import Jsonb

from ..db import Database
from ..queries import queries
from .schemas import REJECTION_CODES

# A group's bounds keep one job short: a worker that runs jobs in its own process (worker.py)
# sends no heartbeat while a job runs, and a SIGTERM waits for the job in hand. 200 one-item
# batches apply in ~100 ms; the first batch is taken whatever its size (up to 5,000 items).
GROUP_MAX_BATCHES = 200
GROUP_MAX_ITEMS = 2000


def apply_batch(db: Database, batch_id: str, *, on_connection=None) -> dict | None:
    """Apply the batch (with the batches of its hotel waiting with it); the batch's outcome
    counts, or None when it was already finished (or is not there at all), by an earlier run
    or in another job's group.

    `on_connection(conn)` is told the connection of each transaction before it starts work,
    so a worker stopping can cancel the statement in hand (worker.py)."""
    with db.connection() as conn:
        started = queries().ari.mark_processing(conn, id=batch_id)
    if started is None:
        return None
    # Each round applies the hotel's oldest group. The batch is in it, unless more than a
    # group's worth of the hotel's batches were waiting before it (another round), or it was
    # finished meanwhile (then the group is all newer, or empty).
    while True:
        group = db.run(_apply_hotel_group, started["property_id"], batch_id, on_connection)
        if batch_id in group:
            outcome = group[batch_id]
            return {"applied_count": outcome["applied_count"],
                    "rejected_count": outcome["rejected_count"], "group_size": len(group)}
        if not group or max(outcome["seq"] for outcome in group.values()) > started["seq"]:
            return None


def _apply_hotel_group(conn, property_id: int, batch_id: str,
                       on_connection) -> dict[str, dict]:
    """The hotel's oldest group applied: {batch id: its outcome counts and seq}."""
    if on_connection is not None:
        on_connection(conn)
    q = queries().ari
    q.lock_hotel(conn, property_id=property_id)
    group = sorted(q.claim_hotel_batches(conn, property_id=property_id, batch_id=batch_id,
                                         max_batches=GROUP_MAX_BATCHES,
                                         max_items=GROUP_MAX_ITEMS),
                   key=lambda batch: batch["seq"])
    if not group:
        return {}
    q.create_pushed_values(conn)
    rejected = {batch["id"]: stage_batch(conn, batch["id"]) for batch in group}
    # One upsert per day table for the whole group: a value's seq (batch seq x 8192 + item
    # index) picks the newest per field, as it does between separate transactions.
    write_values(conn)
    return {batch["id"]: {**finish_batch(conn, batch, rejected[batch["id"]]),
                          "seq": batch["seq"]}
            for batch in group}


def stage_batch(conn, batch_id: str) -> list[dict]:
    """Stage the values of the batch's applicable items; its rejected items, as reported."""
    return [{"index": row["index"], "code": row["code"], "message": rejection_message(row)}
            for row in queries().ari.stage_batch_items(conn, batch_id=batch_id)]


def write_values(conn) -> None:
    q = queries().ari
    q.upsert_room_type_days(conn)
    q.upsert_rate_plan_days(conn)


def finish_batch(conn, batch: dict, rejected: list[dict]) -> dict:
    outcome = {"applied_count": batch["item_count"] - len(rejected),
               "rejected_count": len(rejected)}
    queries().ari.finish_batch(conn, id=batch["id"], rejected=Jsonb(rejected), **outcome)
    return outcome


def rejection_message(row: dict) -> str:
    """The rejected row's code in words, with the values that made it so."""
    code = row["code"]
    specifics = {
        "unknown_room_type": f"room type {row['room_type_code']!r} is not mapped for this "
                             "hotel",
        "unknown_rate_plan": f"rate plan {row['rate_plan_code']!r} is not mapped for this "
                             "hotel",
        "rate_plan_not_for_room_type": f"rate plan {row['rate_plan_code']!r} does not sell "
                                       f"room type {row['room_type_code']!r}",
        "currency_mismatch": f"currency {row['currency']} is not the rate plan's "
                             f"({row['plan_currency']})",
    }
    if code in specifics:
        return specifics[code]
    if code in ("date_in_past", "date_too_far"):
        dates = (str(row["from_date"]) if row["from_date"] == row["to_date"]
                 else f"{row['from_date']}..{row['to_date']}")
        return f"{dates}: {REJECTION_CODES[code]}"
    return REJECTION_CODES[code]
