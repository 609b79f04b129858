"""The dry run of PUT /ari and PUT /ari/restrictions (contract 11.2): what the push would do if
applied now, answered synchronously, with nothing stored.

Exact by construction: the batch is stored, judged, staged and upserted by the very statements
the worker runs (`store_batch`, `stage_batch`, `write_staged_values`), inside a transaction that
is always rolled back. The only difference from a real apply is that no other batch can come
between: the dry run's batch is the newest accepted, so it is compared with the values applied
at the time of the call (queued batches are not taken into account, as the contract says). The
upserts lock the rows they touch until the rollback, as a real apply does (a few hundred ms for
5,000 items); a rolled-back identity value leaves a gap in `ari_batches.seq`, which orders
batches and needs no density."""

from __future__ import annotations

import json
import uuid
from decimal import Decimal

from ..auth.authenticate import Caller
from ..db import Database
from ..queries import queries
from .apply import stage_batch, write_staged_values
from .batches import store_batch


def dry_run_batch(db: Database, caller: Caller, kind: str, request: dict) -> dict:
    return db.run(_dry_run, caller, kind, request)


def _dry_run(conn, caller: Caller, kind: str, request: dict) -> dict:
    q = queries().ari
    items = request["items"]
    with conn.transaction(force_rollback=True):
        batch_id = str(uuid.uuid4())
        store_batch(conn, caller, batch_id, kind, request)  # 404 when not mapped
        batch_seq = q.lock_unfinished_batch(conn, id=batch_id)["seq"]
        rejected = stage_batch(conn, batch_id)
        q.keep_days_before_dry_run(conn)
        write_staged_values(conn)
        rows = q.dry_run_changes(conn, batch_seq=batch_seq)
    changes = []
    for row in rows:
        item = items[row["index"]]
        changes.append({
            "index": row["index"], "room_type_code": item["room_type_code"],
            "rate_plan_code": item.get("rate_plan_code") if row["rate_plan_id"] else None,
            "date": row["date"], "field": row["field"],
            "from": _value(row["old"]), "to": _value(row["new"])})
    return {"dry_run": True, "item_count": len(items),
            "applied_count": len(items) - len(rejected), "rejected_count": len(rejected),
            "rejected": rejected, "changes": changes}


def _value(text: str | None):
    # jsonb text of a stored value: an amount stays exact (Decimal), then written as a number.
    return None if text is None else json.loads(text, parse_float=Decimal)
