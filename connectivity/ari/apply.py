"""Applying an accepted batch (the worker's use case): every item judged against the partner's
mapping, the rows that can apply written in bulk, the outcome recorded, all in one transaction.

Exactly once, whatever the queue does: the transaction starts by locking the batch row if the
batch is unfinished, and ends by marking it finished. A second run waits on that lock and then
finds nothing to do; a run killed midway leaves nothing behind (PostgreSQL rolls it back) and
the batch unfinished, for the next run to apply whole."""

from __future__ import annotations

from psycopg.types.json import Jsonb

from ..db import Database
from ..queries import queries
from .schemas import REJECTION_CODES


def apply_batch(db: Database, batch_id: str) -> dict | None:
    """Apply the batch; its outcome counts, or None when it was already finished (or is not
    there at all)."""
    with db.connection() as conn:
        queries().ari.mark_processing(conn, id=batch_id)
    return db.run(_apply, batch_id)


def _apply(conn, batch_id: str) -> dict | None:
    q = queries().ari
    batch = q.lock_unfinished_batch(conn, id=batch_id)
    if batch is None:
        return None
    rejected = stage_batch(conn, batch_id)
    write_staged_values(conn)
    outcome = {"applied_count": batch["item_count"] - len(rejected),
               "rejected_count": len(rejected)}
    q.finish_batch(conn, id=batch_id, rejected=Jsonb(rejected), **outcome)
    return outcome


def stage_batch(conn, batch_id: str) -> list[dict]:
    """Judge every item of a stored batch by the rejection rules (stage_batch_items) and stage
    the values of those that can apply in `pushed_values`; the rejected rows, as the batch
    outcome reports them. The worker and the dry run both call this: one set of rules."""
    q = queries().ari
    q.create_pushed_values(conn)
    return [{"index": row["index"], "code": row["code"], "message": rejection_message(row)}
            for row in q.stage_batch_items(conn, batch_id=batch_id)]


def write_staged_values(conn) -> None:
    """Upsert the staged values into the day tables, each field with its acceptance order."""
    q = queries().ari
    q.upsert_room_type_days(conn)
    q.upsert_rate_plan_days(conn)


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
