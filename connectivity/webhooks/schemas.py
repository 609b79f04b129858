"""Requests and responses of the webhook endpoints' operations (contract 12.3)."""

from __future__ import annotations

from marshmallow import ValidationError, fields, validate, validates

from connectivity.events.log import EVENT_TYPES
from connectivity.web.fields import PageCursor, PageLimit, Text
from connectivity.web.schema import Schema
from connectivity.webhooks.destination import MAX_URL_LENGTH

MAX_EVENT_TYPES = 20
MAX_DESCRIPTION = 200
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
ENDPOINT_STATUSES = ("enabled", "disabled")
DELIVERY_STATUSES = ("pending", "delivered", "failed")
EVENT_TYPE_TEXT = ("types of GET /events (" + ", ".join(f"`{t}`" for t in EVENT_TYPES)
                   + "), or `[\"*\"]` alone for every type the key may see")


class WebhookEndpointRequestSchema(Schema):
    url = Text(MAX_URL_LENGTH, required=True, metadata={
        "description": "absolute; production keys https only, sandbox keys http or https; the "
                       "host must be, or resolve only to, public addresses (loopback only for "
                       "sandbox keys of a service whose operator allows it, such as a local "
                       "demo); port 80, 443 or 1024-65535; checked again at every delivery",
        "example": "https://93.184.216.34/pcs-webhooks"})
    event_types = fields.List(fields.String(metadata={"enum": [*EVENT_TYPES, "*"]}),
                              required=True,
                              validate=validate.Length(min=1, max=MAX_EVENT_TYPES), metadata={
                                  "description": f"1-{MAX_EVENT_TYPES} {EVENT_TYPE_TEXT}",
                                  "example": ["booking.confirmed", "booking.cancelled"]})
    description = Text(MAX_DESCRIPTION, allow_none=True, metadata={
        "description": f"1-{MAX_DESCRIPTION} characters of text, or null"})

    @validates("event_types")
    def known_types(self, value: list[str], **_):
        if value == ["*"]:
            return
        if "*" in value:
            raise ValidationError('"*" stands alone: ["*"] for every type, or name the types')
        unknown = [t for t in value if t not in EVENT_TYPES]
        if unknown:
            raise ValidationError(f"unknown event type(s): {', '.join(unknown)}; the types are "
                                  + ", ".join(EVENT_TYPES))
        if len(set(value)) != len(value):
            raise ValidationError("each type at most once")


class WebhookEndpointSchema(Schema):
    endpoint_id = fields.String(required=True, metadata={"example": "we_4f9KqZ2mYc8LtR0pXa7Vb1Nd"})
    url = fields.String(required=True)
    event_types = fields.List(fields.String(metadata={"enum": [*EVENT_TYPES, "*"]}),
                              required=True, metadata={
        "description": "as sent at creation (`[\"*\"]` stays so)"})
    description = fields.String(required=True, allow_none=True)
    status = fields.String(required=True, metadata={
        "enum": [*ENDPOINT_STATUSES, "deleted"],
        "description": "`enabled`; `disabled` after 5 days of failing deliveries (POST "
                       ".../enable enables it); `deleted` only in the answer of DELETE"})
    created_at = fields.AwareDateTime(required=True)


class WebhookEndpointCreatedSchema(Schema):
    endpoint = fields.Nested(WebhookEndpointSchema, required=True)
    secret = fields.String(required=True, metadata={
        "description": "`whsec_` and the base64 of 32 random bytes: the key of every delivery's "
                       "signature. Shown only in this answer: keep it.",
        "example": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8VcXoDfAa0s="})


class WebhookEndpointAnswerSchema(Schema):
    endpoint = fields.Nested(WebhookEndpointSchema, required=True)


class WebhookEndpointListSchema(Schema):
    endpoints = fields.List(fields.Nested(WebhookEndpointSchema), required=True, metadata={
        "description": "oldest first; never a secret"})


class WebhookDeliveriesQuerySchema(Schema):
    status = fields.String(validate=validate.OneOf(DELIVERY_STATUSES))
    cursor = PageCursor("opaque, `next_cursor` of the page before (otherwise 422 naming `cursor`)")
    limit = PageLimit(DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, "deliveries")


class WebhookDeliverySchema(Schema):
    event_id = fields.String(required=True, metadata={
        "description": "the event's id, sent as `webhook-id`"})
    type = fields.String(required=True, metadata={"description": "the event's type, or `ping`"})
    status = fields.String(required=True, metadata={"enum": list(DELIVERY_STATUSES)})
    attempts = fields.Integer(required=True)
    last_attempt_at = fields.AwareDateTime(required=True, allow_none=True)
    last_status_code = fields.Integer(required=True, allow_none=True, metadata={
        "description": "the endpoint's last HTTP status; null when it gave none (a timeout, a "
                       "refused connection, a URL refused by the rules)"})
    last_error = fields.String(required=True, allow_none=True, metadata={
        "description": "why the last attempt failed; null after a success"})
    next_attempt_at = fields.AwareDateTime(required=True, allow_none=True, metadata={
        "description": "when a pending delivery is tried next; null once delivered or failed"})


class WebhookDeliveryListSchema(Schema):
    deliveries = fields.List(fields.Nested(WebhookDeliverySchema), required=True, metadata={
        "description": "newest first"})
    next_cursor = fields.String(required=True, allow_none=True, metadata={
        "description": "null exactly when has_more is false"})
    has_more = fields.Boolean(required=True)


class WebhookReplaySchema(Schema):
    event_id = fields.String(required=True)


class WebhookPingSchema(Schema):
    event_id = fields.String(required=True)
    type = fields.String(required=True, metadata={"enum": ["ping"]})
    created_at = fields.AwareDateTime(required=True)
    data = fields.Dict(required=True)
