"""The dry run of PUT /ari and PUT /ari/restrictions (contract 11.2): what the push would do if
applied now, answered synchronously, with nothing stored.

Exact by construction: the batch is stored, judged, staged and upserted by the very statements
the worker runs (`store_batch`, `stage_batches`, `write_staged_values`), inside a transaction that
is always rolled back. The upserts write into temporary copies of the rows the batch touches,
which stand in for the day tables under the same names (sql/queries/ari/dry_run.sql,
shadow_day_tables): the rejection rules and the newer-wins rule run as the worker's own SQL,
while the day tables are neither written nor locked, and their change-log triggers, foreign-key
checks and index upkeep, which make a write into those large tables slow, are not paid for. The
dry run's batch is the newest accepted, so it is compared with the values applied at the time of
the call (queued batches are not taken into account, as the contract says). Its batch takes the
hotel's next acceptance number (property_counters) and the rollback gives it back; the counter's
row stays locked meanwhile, so the hotel's real pushes wait for the dry run to end, as they
would for another push."""

from __future__ import annotations

import json
import uuid

from connectivity.auth.authenticate import Caller
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.ari.apply import stage_batches, write_staged_values
from connectivity.ari.batches import store_batch


def dry_run_batch(db: Database, caller: Caller, kind: str, request: dict) -> str:
    """The answer's `data`, as JSON text (the changes written by PostgreSQL: a 5,000-item push
    can change 20,000 fields, which Python builds and encodes far more slowly than PostgreSQL)."""
    return db.run(_dry_run, caller, kind, request)


def _dry_run(conn, caller: Caller, kind: str, request: dict) -> str:
    q = queries().ari
    items = request["items"]
    with conn.transaction(force_rollback=True):
        batch_id = str(uuid.uuid4())
        stored = store_batch(conn, caller, batch_id, kind, request)  # 404 when not mapped
        batch = q.dry_run_batch_seq(conn, property_id=stored["property_id"], id=batch_id)
        batch_seq = batch["seq"]
        staged = stage_batches(conn, [batch])
        rejected = staged.rejected[batch_id]
        q.create_day_rows_before(conn)
        q.remember_room_type_days(conn, stage=staged.stage, property_ids=staged.property_ids)
        q.remember_rate_plan_days(conn, stage=staged.stage, property_ids=staged.property_ids)
        q.shadow_day_tables(conn)
        write_staged_values(conn, staged)
        changes = q.dry_run_changes(
            conn, batch_seq=batch_seq,
            room_type_codes=[item["room_type_code"] for item in items],
            rate_plan_codes=[item.get("rate_plan_code") for item in items])
    head = json.dumps({"dry_run": True, "item_count": len(items),
                       "applied_count": len(items) - len(rejected),
                       "rejected_count": len(rejected), "rejected": rejected},
                      separators=(",", ":"))
    return head[:-1] + ',"changes":' + changes + "}"
