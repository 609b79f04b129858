"""Applying accepted batches (the worker's use case): every item judged against the partner's
mapping, the rows that can apply written in bulk, each batch's outcome recorded.

A job names one batch, but channel managers send a stream of small batches over many hotels,
and most of a small batch's cost is the transaction around it and the statements' planning. So
a job applies a group in ONE transaction: its batch's hotel and the hotels of the oldest waiting
batches, up to GROUP_MAX_BATCHES / GROUP_MAX_ITEMS, all staged and judged by one statement,
written by one upsert per day table, and finished by one UPDATE, each batch with its own
outcome. The jobs of the other batches of the group then find them finished and do nothing.

Guarantees, all from PostgreSQL:
- acceptance order per hotel: a transaction applies a hotel's batches only while it holds the
  hotel's advisory lock (claim_group.sql try_lock_hotels, lock_hotel), and always takes the
  hotel's oldest unfinished batches;
- exactly once: a batch is claimed only while unfinished, under its row lock, and finished in
  the same transaction; a run killed midway leaves nothing behind (PostgreSQL rolls it back) and
  its batches unfinished, for the next run to apply whole."""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass

from psycopg.types.json import Jsonb

from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.ari.batch_events import announce_finished
from connectivity.ari.schemas import REJECTION_CODES

# A group's bounds keep one job short: the worker runs jobs in its own process (worker.py) and
# sends no heartbeat while a job runs, and a SIGTERM waits for the job in hand. The first batch
# is taken whatever its size (up to 5,000 items).
GROUP_MAX_BATCHES = 200
GROUP_MAX_ITEMS = 2000
# How many of the oldest waiting batches a group looks among for hotels: the first group's
# worth may be what other workers are applying.
HOTEL_WINDOW_BATCHES = 4 * GROUP_MAX_BATCHES


def apply_batch(db: Database, batch_id: str, property_id: int | None = None, *,
                on_connection=None, on_claimed=None) -> dict | None:
    """Apply the batch, with a group of other waiting batches; the batch's outcome counts (and
    the ids of the others its group applied), or None when it was already finished (or is
    not there at all), by an earlier run or in another job's group.

    `on_connection(conn)` is told the connection of each transaction before it starts work,
    so a worker stopping can cancel the statement in hand (worker.py); `on_claimed(batches)` the
    other batches of each group (their id and property_id) once claimed, before they are applied
    (jobs.py). `property_id`, the batch's hotel, spares a lookup by id (every shard on Citus)."""
    q = queries().ari
    with db.connection() as conn:
        if property_id is None:
            property_id = q.batch_hotel(conn, id=batch_id)
        started = property_id and q.mark_processing(conn, property_id=property_id, id=batch_id)
    if not started:
        return None
    # The batch is in the first group unless another worker holds its hotel, or more than a
    # group's worth of its hotel's batches were waiting before it: then another round. A round
    # that could do nothing else waits for the hotel.
    wait = False
    while True:
        group = db.run(_apply_group, batch_id, started["property_id"], wait, on_connection,
                       on_claimed)
        if batch_id in group:
            return {**group[batch_id], "others": [b for b in group if b != batch_id]}
        with db.connection() as conn:
            if q.batch_unfinished(conn, property_id=property_id, id=batch_id) is None:
                # Another job's group applied it and counted the attempt: this job's mark was
                # none (a transaction of this job that took it and rolled back would have
                # raised instead of coming here).
                q.give_back_attempt(conn, property_id=property_id, id=batch_id)
                return None
            if wait and not group:
                # The hotel was ours and nothing of it could be claimed: a sandbox batch before
                # this one waits for its time (delayed_apply). Its own job, scheduled for then,
                # applies this one in its group (and recovery would requeue it in any case);
                # whichever takes it counts that attempt.
                q.give_back_attempt(conn, property_id=property_id, id=batch_id)
                return None
        wait = not group


def _apply_group(conn, batch_id: str, property_id: int, wait: bool, on_connection,
                 on_claimed) -> dict[str, dict]:
    """One group applied: {batch id: its outcome counts}."""
    if on_connection is not None:
        on_connection(conn)
    group = claim_group(conn, property_id, wait, batch_id)
    if not group:
        return {}
    if on_claimed is not None:
        on_claimed([batch for batch in group if batch["id"] != batch_id])
    staged = stage_batches(conn, group)
    # One upsert per day table for the whole group: a value's seq (its item's acceptance order,
    # sql/migrations/0016) picks the newest per field, as it does between separate transactions.
    write_staged_values(conn, staged)
    return finish_batches(conn, group, staged.rejected)


def claim_group(conn, property_id: int, wait: bool, batch_id: str) -> list[dict]:
    """Lock the job's hotel (waiting for the worker that holds it only if `wait`), then the
    hotels of the oldest waiting batches that no other worker holds, and claim their oldest
    batches, the job's hotel's first; each counts an attempt but the job's own `batch_id`,
    which its job counted when it marked it."""
    q = queries().ari
    if wait:
        q.lock_hotel(conn, property_id=property_id)
    own = wait or bool(q.try_lock_hotels(conn, property_ids=[property_id]))
    hotels = ([property_id] if own else []) + lock_waiting_hotels(conn, property_id)
    if not hotels:
        return []
    return q.claim_batches(conn, property_ids=hotels, own_property_id=property_id,
                           own_batch_id=batch_id, max_batches=GROUP_MAX_BATCHES,
                           max_items=GROUP_MAX_ITEMS)


def lock_waiting_hotels(conn, property_id: int) -> list[int]:
    """The hotels of the oldest waiting batches whose locks are free, taken a group's worth at
    a time: a worker takes no more hotels than it can apply, so a second worker finds the next
    ones free instead of every hotel in sight held by the first."""
    q = queries().ari
    waiting = q.waiting_hotels(conn, property_id=property_id, window=HOTEL_WINDOW_BATCHES)
    held, batches, tried = [], 0, 0
    while tried < len(waiting) and batches < GROUP_MAX_BATCHES:
        chunk, room = [], GROUP_MAX_BATCHES - batches
        while tried < len(waiting) and room > 0:
            chunk.append(waiting[tried])
            room -= waiting[tried]["batches"]
            tried += 1
        taken = {row["property_id"] for row in q.try_lock_hotels(
            conn, property_ids=[hotel["property_id"] for hotel in chunk])}
        for hotel in chunk:
            if hotel["property_id"] in taken:
                held.append(hotel["property_id"])
                batches += hotel["batches"]
    return held


@dataclass(frozen=True)
class Staged:
    """A staging in ari_staged_values: its rows are those of `stage`, on the shards of
    `property_ids` (every statement names both, so that on Citus each is a router statement
    for a one-hotel group); `rejected` lists each batch's rejected items as its outcome
    reports them."""
    stage: uuid.UUID
    property_ids: list[int]
    rejected: dict[str, list[dict]]


def stage_batches(conn, batches: list[dict]) -> Staged:
    """Judge every item of the stored batches (rows with their id and property_id)
    by the rejection rules (stage_batch_items) and stage them: the values of those that can
    apply, and the others with their codes. The worker (a group) and the dry run (one batch)
    both come here: one set of rules."""
    q = queries().ari
    staged = Staged(uuid.uuid4(), sorted({batch["property_id"] for batch in batches}),
                    defaultdict(list))
    batch_ids = [batch["id"] for batch in batches]
    rules = q.judging_rules(conn, batch_ids=batch_ids, property_ids=staged.property_ids)
    q.stage_batch_items(conn, stage=staged.stage, batch_ids=batch_ids,
                        property_ids=staged.property_ids, rules=rules)
    for row in q.staged_rejections(conn, stage=staged.stage, property_ids=staged.property_ids):
        staged.rejected[row["batch_id"]].append({"index": row["index"], "code": row["code"],
                                                 "message": rejection_message(row)})
    return staged


def write_staged_values(conn, staged: Staged) -> None:
    """Upsert the staged values into the day tables, each field with its acceptance order, then
    empty the staging (its rows live only within their transaction)."""
    q = queries().ari
    q.upsert_room_type_days(conn, stage=staged.stage, property_ids=staged.property_ids)
    q.upsert_rate_plan_days(conn, stage=staged.stage, property_ids=staged.property_ids)
    q.unstage(conn, stage=staged.stage, property_ids=staged.property_ids)


def finish_batches(conn, group: list[dict], rejected: dict[str, list[dict]]) -> dict[str, dict]:
    outcomes = {batch["id"]: {"applied_count": batch["item_count"] - len(rejected[batch["id"]]),
                              "rejected_count": len(rejected[batch["id"]])}
                for batch in group}
    finished = queries().ari.finish_batches(conn, outcomes=Jsonb(
        {batch_id: {**outcome, "rejected": rejected[batch_id]}
         for batch_id, outcome in outcomes.items()}),
        property_ids=sorted({batch["property_id"] for batch in group}))
    announce_finished(conn, finished)
    return outcomes


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
