"""The event log (contract 12.2): one ordered log per partner and environment.

Writing: `record(conn, ...)` in the transaction of the event's cause, so an event exists exactly
when its cause committed (never lost, never for a rolled-back cause). Reading: `read_page`, after
a position, with the change feed's guarantees (no gap whatever the commit order of concurrent
writers, at-least-once with the same event_id; connectivity/logtail/tail.py). A reader holds its
position between pages: GET /events as a signed cursor (events/cursor.py), a webhook endpoint as
it chooses (`positions_to_list` / `positions_from_list` in logtail/positions.py).

This is the log's public interface: names here stay; extend rather than rename."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from connectivity.logtail import tail
from connectivity.logtail.positions import Positions
from connectivity.logtail.tail import CursorExpired
from connectivity.store.queries import queries

__all__ = ["EVENT_SCOPES", "EVENT_TYPES", "EXPIRED", "CursorExpired", "Event", "EventPage",
           "latest", "oldest", "read_page", "record", "types_visible_to"]

# Each type and the scopes that let a key see it (contract 12.2's table): a key sees a type when
# it holds any of them.
EVENT_SCOPES: Mapping[str, frozenset[str]] = {
    "ari_batch.finished": frozenset({"ari.write", "restriction.write"}),
    "booking.confirmed": frozenset({"booking.read"}),
    "booking.cancelled": frozenset({"booking.read"}),
    "booking.hotel_confirmed": frozenset({"booking.read"}),
    "hotel_booking.confirmed": frozenset({"reservation.write"}),
    "hotel_booking.cancelled": frozenset({"reservation.write"}),
    "reservation.flagged": frozenset({"reservation.write", "reservation.cancel"}),
    "mapping.paused": frozenset({"content.read", "ari.read", "ari.write"}),
    "mapping.resumed": frozenset({"content.read", "ari.read", "ari.write"}),
}
EVENT_TYPES: tuple[str, ...] = tuple(EVENT_SCOPES)

EXPIRED = ("this cursor is older than the events kept (at least 30 days); start again without a "
           "cursor (GET /events) and read what you need afresh")


def types_visible_to(scopes: Iterable[str]) -> tuple[str, ...]:
    """The types a key holding `scopes` may see, in the table's order (empty: none)."""
    held = set(scopes)
    return tuple(t for t, needs in EVENT_SCOPES.items() if needs & held)


@dataclass(frozen=True)
class Event:
    event_id: str
    type: str
    body: str  # the event object {"event_id", "type", "created_at", "data"}, compact JSON

    @property
    def document(self) -> dict[str, Any]:
        return json.loads(self.body)


@dataclass(frozen=True)
class EventPage:
    events: list[Event]  # oldest first
    has_more: bool  # true when another page follows at once
    next: Positions  # where the next page starts: hold it, read from it later


def record(conn, *, property_id: int, partner_id: int, environment: str, type: str,
           data: Mapping[str, Any]) -> str:
    """Writes one event for `partner_id`'s log of `environment`, caused by something of
    `property_id`, in the caller's transaction (the cause's; on the cause's shard under
    Citus). `data` must be JSON as the partner reads it. The event's id."""
    if type not in EVENT_SCOPES:
        raise ValueError(f"{type!r} is not an event type")
    event_id = f"evt_{uuid.uuid4().hex}"  # random: no sequence shared between the shards
    queries().events.record_event(
        conn, property_id=property_id, partner_id=partner_id, environment=environment,
        event_id=event_id, type=type, data=json.dumps(data, separators=(",", ":")))
    return event_id


def oldest(conn) -> Positions:
    """Where a reader of every event kept starts."""
    return tail.oldest_kept(conn, queries().events.event_log_pruned)


def latest(conn) -> Positions:
    """The current position: a reader starting here sees only events committed from now on."""
    return tail.latest(conn, queries().events.event_log_pruned)


def read_page(conn, partner_id: int, environment: str, after: Positions, limit: int,
              types: Iterable[str] = EVENT_TYPES, *, check_expiry: bool = True) -> EventPage:
    """Up to `limit` events of the partner and environment of `types`, after `after`, and the
    position after them. Raises CursorExpired (410 cursor_expired) when `after` is into events
    pruned since (`check_expiry=False` for a reader that started at `oldest()` and accepts
    fewer events instead)."""
    types = list(types)

    def read_rows(conn, **bounds):
        return queries().events.event_page(conn, partner_id=partner_id,
                                           environment=environment, types=types, **bounds)

    marks = queries().events.event_log_pruned if check_expiry else None
    page = tail.read_page(conn, after, limit, read_rows, marks, EXPIRED)
    return EventPage([Event(r["event_id"], r["type"], _compact(r["event"])) for r in page.rows],
                     page.has_more, page.next)


def _compact(text: str) -> str:
    """The event as PostgreSQL wrote it (a space after each ':' and ',' of json_build_object's
    and jsonb's text), written compact as every other answer is (orjson, as web/ready_body.py),
    for GET /events and the webhook deliveries alike. The same values: record() stores what
    json.dumps wrote, whose numbers (ints, floats in their shortest form) read back the same."""
    return orjson.dumps(orjson.loads(text)).decode()
