"""Requests and responses of the pull bookings: quote, create, read and cancel, with the field
rules of the specification's tables. Every failing path is reported at once (422
`validation_failed`)."""

from __future__ import annotations

import re

from marshmallow import ValidationError, fields, validate, validates_schema

from connectivity.web.schema import Schema
from connectivity.availability.schemas import NightSchema, StaySchema, stay_date_errors
from connectivity.mapping.schemas import CancellationPolicySchema
from connectivity.pricing import OccupancyError, occupancy_from_guests
from connectivity.web.fields import (
    Amount,
    CountryCode,
    CurrencyCode,
    Day,
    EmailAddress,
    Flag,
    Money,
    PageCursor,
    PageLimit,
    PartnerCode,
    Reference,
    Text,
)
from connectivity.web.validators import ADULTS, CHILDREN, ROOMS
from connectivity.bookings.quote_token import MAX_TOKEN_LENGTH, TOKEN_PATTERN, TOKEN_RE

ARRIVAL_TIME_RE = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]\Z")
# The most rooms, each with the most adults and children.
MAX_GUESTS = ROOMS[1] * (ADULTS[1] + CHILDREN[1])


class QuoteRequestSchema(StaySchema):
    hotel_code = PartnerCode(required=True)
    room_type_code = PartnerCode(required=True)
    rate_plan_code = PartnerCode(required=True)


class GuestSchema(Schema):
    room_number = fields.Integer(required=True, strict=True, validate=validate.Range(*ROOMS),
                                 metadata={"description": "1 to `rooms`"})
    first_name = Text(100, required=True)
    last_name = Text(100, required=True)
    is_adult = Flag(required=True)
    age = fields.Integer(strict=True, validate=validate.Range(0, 120), metadata={
        "description": "a child's age prices it (older than the property's `max_child_age`: "
                       "as an adult); a child without an age is priced as a child"})
    nationality = CountryCode()
    is_lead = Flag(metadata={
        "description": "at most one guest; the lead guest's nationality is the booking's when "
                       "no quote_token is sent (else the first adult of room 1's)"})


class ContactSchema(Schema):
    first_name = Text(100, required=True)
    last_name = Text(100)
    email = EmailAddress(required=True)
    phone = Text(50)


class BookingRequestSchema(Schema):
    partner_reference = Reference(required=True, metadata={
        "description": "the idempotency key: unique per partner and environment"})
    quote_token = fields.String(
        validate=validate.Regexp(TOKEN_RE, error="is not a quote token of this service"),
        metadata={"pattern": TOKEN_PATTERN, "maxLength": MAX_TOKEN_LENGTH, "description":
                  "from POST /bookings/quote: the quoted total and currency apply"})
    hotel_code = PartnerCode(required=True)
    room_type_code = PartnerCode(required=True)
    rate_plan_code = PartnerCode(required=True)
    check_in = Day(required=True, metadata={"description": "today or later, property time"})
    check_out = Day(required=True, metadata={"description": "after check_in"})
    rooms = fields.Integer(required=True, strict=True, validate=validate.Range(*ROOMS))
    guests = fields.List(fields.Nested(GuestSchema), required=True,
                         validate=validate.Length(min=1, max=MAX_GUESTS), metadata={
                             "description": "per room, keyed by `room_number`; every room "
                                            "1..`rooms` has at least one `is_adult` guest; the "
                                            "occupancy that prices the booking comes from here"})
    contact = fields.Nested(ContactSchema, required=True)
    total_amount = Amount(required=True, metadata={
        "description": "the partner's expected total; must equal the service's to the minor "
                       "unit, else 409 `price_mismatch`"})
    currency = CurrencyCode(required=True)
    special_requests = Text(2000, lines=True)
    arrival_time = fields.String(validate=validate.Regexp(
        ARRIVAL_TIME_RE, error="must be a time written HH:MM"), metadata={"example": "15:30"})

    @validates_schema(skip_on_field_errors=False)
    def _stay_and_rooms(self, data, **_):
        errors = stay_date_errors(data)
        rooms, guests = data.get("rooms"), data.get("guests")
        if rooms is not None and guests is not None:
            try:
                occupancy_from_guests(guests, rooms, max_child_age=17)
            except OccupancyError as exc:
                for path, messages in exc.fields.items():
                    errors.setdefault(path, []).extend(messages)
        if guests is not None and sum(1 for g in guests if g.get("is_lead")) > 1:
            errors.setdefault("guests", []).append("at most one guest may be `is_lead`")
        if errors:
            raise ValidationError(errors)


class CancelRequestSchema(Schema):
    reason = Text(500, lines=True)
    expected_penalty_amount = Amount(metadata={
        "description": "the most the caller accepts to pay; a higher penalty is 409 "
                       "`penalty_exceeds_expectation` and nothing is cancelled"})
    currency = CurrencyCode(metadata={
        "description": "of expected_penalty_amount: the booking's currency (422 otherwise)"})


class StayNightSchema(Schema):
    date = fields.Date(required=True)
    amount = Money(required=True, metadata={"description": "the night's price, all rooms"})


class PricedStaySchema(Schema):
    """What a quote and a booking both say of the stay and its price."""
    hotel_code = fields.String(required=True)
    room_type_code = fields.String(required=True)
    rate_plan_code = fields.String(required=True)
    check_in = fields.Date(required=True)
    check_out = fields.Date(required=True)
    rooms = fields.Integer(required=True)
    total_amount = Money(required=True)
    currency = fields.String(required=True)


class QuoteResultSchema(PricedStaySchema):
    quote_token = fields.String(required=True, metadata={
        "description": "send with POST /bookings within the validity; at most 512 characters; "
                       "signed, not encrypted"})
    expires_at = fields.DateTime(required=True)
    nights = fields.List(fields.Nested(NightSchema), required=True)
    cancellation_policy = fields.Nested(CancellationPolicySchema, required=True)


class BookingSchema(PricedStaySchema):
    partner_reference = fields.String(required=True)
    confirmation_number = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": ["confirmed", "cancelled"]})
    nights = fields.List(fields.Nested(StayNightSchema), required=True)
    cancellation_policy = fields.Nested(CancellationPolicySchema, required=True, metadata={
        "description": "as in force when the booking was made; the penalty follows it"})
    guests = fields.List(fields.Nested(GuestSchema), required=True, allow_none=True, metadata={
        "description": "null once `guest_data_purged`"})
    contact = fields.Nested(ContactSchema, required=True, allow_none=True, metadata={
        "description": "null once `guest_data_purged`"})
    special_requests = fields.String(allow_none=True)
    arrival_time = fields.String(allow_none=True)
    created_at = fields.DateTime(required=True)
    cancelled_at = fields.DateTime(required=True, allow_none=True, metadata={
        "description": "null until cancelled"})
    penalty_amount = Money(required=True, allow_none=True, metadata={
        "description": "null until cancelled"})
    guest_data_purged = fields.Boolean(required=True, metadata={
        "description": "true once the guests' personal data expired (the service keeps it for "
                       "a set time after check-out): `guests`, `contact` and "
                       "`special_requests` are then null; the stay, amounts, references and "
                       "policy stay"})
    guest_data_purged_at = fields.DateTime(required=True, allow_none=True, metadata={
        "description": "when it expired; null while the booking holds it"})
    hotel_confirmation_code = fields.String(required=True, allow_none=True, metadata={
        "description": "the hotel's own confirmation code, as its system gave it when it "
                       "acknowledged the booking (what the front desk knows the stay by); null "
                       "until the hotel gives one, and replaced when it gives another"})
    hotel_acknowledged_at = fields.DateTime(required=True, allow_none=True, metadata={
        "description": "when the hotel's system first said it loaded the confirmed booking; "
                       "null until then (a booking cancelled before the hotel loaded it stays "
                       "null)"})


class BookingResultSchema(Schema):
    booking = fields.Nested(BookingSchema, required=True)
    idempotent_replay = fields.Boolean(required=True, metadata={
        "description": "true when partner_reference was already a booking: that booking is "
                       "returned (200) and nothing else happens"})
    request_differs = fields.Boolean(required=True, metadata={
        "description": "on a replay, true when this body differs from the original's"})


class BookingDataSchema(Schema):
    booking = fields.Nested(BookingSchema, required=True)


class CancelResultSchema(Schema):
    booking = fields.Nested(BookingSchema, required=True)
    penalty_amount = Money(required=True)
    currency = fields.String(required=True)
    idempotent_replay = fields.Boolean(required=True, metadata={
        "description": "true when the booking was already cancelled: the recorded result"})


# GET /bookings (contract 12.1) --------------------------------------------------------------

DEFAULT_LIST_SIZE = 50
MAX_LIST_SIZE = 200


class BookingListQuerySchema(Schema):
    hotel_code = PartnerCode(metadata={
        "description": "only this hotel's bookings; a code not mapped for the caller gives an "
                       "empty list"})
    status = fields.String(validate=validate.OneOf(["confirmed", "cancelled"]))
    created_from = fields.AwareDateTime(metadata={
        "description": "ISO 8601 with offset; inclusive"})
    created_to = fields.AwareDateTime(metadata={
        "description": "ISO 8601 with offset; inclusive"})
    check_in_from = Day(metadata={"description": "inclusive"})
    check_in_to = Day(metadata={"description": "inclusive"})
    cursor = PageCursor("opaque, as `next_cursor` gave it, with the same filters it was issued "
                        "for (otherwise 422 naming `cursor`)")
    limit = PageLimit(DEFAULT_LIST_SIZE, MAX_LIST_SIZE, "bookings")


class BookingListSchema(Schema):
    bookings = fields.List(fields.Nested(BookingSchema), required=True, metadata={
        "description": "oldest `created_at` first"})
    next_cursor = fields.String(required=True, allow_none=True, metadata={
        "description": "null exactly when `has_more` is false"})
    has_more = fields.Boolean(required=True)
