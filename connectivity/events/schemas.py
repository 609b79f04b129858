"""GET /events: its query and its answer (contract 12.2)."""

from __future__ import annotations

from marshmallow import ValidationError, fields, validate, validates_schema

from connectivity.events.log import EVENT_SCOPES, EVENT_TYPES
from connectivity.web.fields import PageCursor, PageLimit
from connectivity.web.schema import Schema

DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 500

_TYPE_TABLE = "; ".join(f"`{t}` ({', '.join(sorted(s))})" for t, s in EVENT_SCOPES.items())


class EventTypeList(fields.Field):
    """Event types, comma-separated; loaded as a list without repeats, in the order sent."""

    def __init__(self, **kwargs):
        kwargs["metadata"] = {"type": "string", **kwargs.get("metadata", {})}
        super().__init__(**kwargs)

    def _deserialize(self, value, attr, data, **kwargs) -> list[str]:
        if not isinstance(value, str) or not value:
            raise ValidationError("must be one or more event types separated by commas")
        types = list(dict.fromkeys(value.split(",")))
        unknown = [t for t in types if t not in EVENT_SCOPES]
        if unknown:
            raise ValidationError(f"unknown event type(s) {', '.join(map(repr, unknown))}; the "
                                  f"types are {', '.join(EVENT_TYPES)}")
        return types


class EventsQuerySchema(Schema):
    cursor = PageCursor("opaque, as `next_cursor` gave it to this key (a position: valid with "
                        "any `types`); absent: from the oldest event kept")
    limit = PageLimit(DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, "events")
    types = EventTypeList(metadata={
        "description": "only these types, comma-separated (e.g. "
                       "`booking.confirmed,booking.cancelled`); each must be one the key may see. "
                       f"Absent: every type the key may see. Types and their scopes: "
                       f"{_TYPE_TABLE}"})
    start = fields.String(validate=validate.OneOf(["latest"]), metadata={
        "description": "`latest` (without `cursor`): no events, and `next_cursor` the current "
                       "position, to follow only what happens from now on"})

    @validates_schema
    def _start_without_cursor(self, data, **_):
        if "start" in data and "cursor" in data:
            raise ValidationError("start=latest is for a reader without a cursor; send one or "
                                  "the other", "start")


class EventSchema(Schema):
    event_id = fields.String(required=True, metadata={
        "description": "the same on every reading and every webhook delivery: deduplicate by it"})
    type = fields.String(required=True, metadata={"enum": list(EVENT_TYPES)})
    created_at = fields.AwareDateTime(required=True)
    data = fields.Dict(required=True, metadata={
        "description": "by type: `ari_batch.finished` the batch as GET /ari/batches/{batchId} "
                       "answers it; `booking.*` and `hotel_booking.*` `{\"booking\"}`; "
                       "`reservation.flagged` `partner_reference`, `hotel_code`, `code`, "
                       "`message`; `mapping.*` `hotel_code` (the operation's description says "
                       "more)"})


class EventsSchema(Schema):
    events = fields.List(fields.Nested(EventSchema), required=True, metadata={
        "description": "oldest first; at least once (an event may appear again, with the same "
                       "event_id), never less"})
    next_cursor = fields.String(required=True, metadata={
        "description": "always a string: where the next poll starts"})
    has_more = fields.Boolean(required=True, metadata={
        "description": "true: more events are ready now, poll again at once"})
