"""Accepting an ARI batch and reading its outcome.

A batch is durable once PUT /ari answers 202: it is stored whole in PostgreSQL, in one
transaction, and only after that commit is the job to apply it put on the queue. If Redis is
down at that moment the batch is still accepted; the worker's recovery finds it (queue.py)."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from decimal import Decimal
from typing import Any

from psycopg.types.json import Jsonb

from ..auth.authenticate import Caller
from ..db import Database
from ..errors import NotFound
from ..queries import queries
from .queue import BatchQueue


def _json_value(value: Any) -> str:
    # Amounts are kept as the exact decimal strings they were read as, dates as YYYY-MM-DD.
    if isinstance(value, (Decimal, dt.date)):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _items_json(items: list[dict]) -> Jsonb:
    return Jsonb(items, dumps=lambda obj: json.dumps(obj, default=_json_value,
                                                     separators=(",", ":")))


def accept_batch(db: Database, queue: BatchQueue, caller: Caller, kind: str,
                 request: dict) -> dict:
    """Store the batch (404 when the hotel is not mapped for the caller), then enqueue it."""
    batch_id = str(uuid.uuid4())
    accepted = db.run(store_batch, caller, batch_id, kind, request)
    queue.enqueue(batch_id)
    return accepted


def store_batch(conn, caller: Caller, batch_id: str, kind: str, request: dict) -> dict:
    q = queries().ari
    hotel = q.find_mapped_hotel(conn, partner_id=caller.partner_id,
                                environment=caller.environment, hotel_code=request["hotel_code"])
    if hotel is None:
        raise NotFound(f"hotel {request['hotel_code']!r} is not mapped for this partner")
    return q.accept_batch(conn, id=batch_id, partner_id=caller.partner_id,
                          environment=caller.environment, mapping_id=hotel["mapping_id"],
                          property_id=hotel["property_id"], hotel_code=hotel["hotel_code"],
                          kind=kind, items=_items_json(request["items"]),
                          item_count=len(request["items"]))


def batch_outcome(db: Database, caller: Caller, batch_id: str) -> dict:
    with db.connection() as conn:
        outcome = queries().ari.batch_outcome(conn, id=batch_id, partner_id=caller.partner_id,
                                              environment=caller.environment)
    if outcome is None:
        raise NotFound(f"no batch {batch_id!r} for this partner")
    return outcome
