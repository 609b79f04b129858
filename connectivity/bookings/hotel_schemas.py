"""The hotel's side of a pull booking (contract 12.2's hotel_booking, 13.2): the booking as a
receiver of its hotel reads it, the list's query, and the acknowledgement's request."""

from __future__ import annotations

import re

from marshmallow import fields, validate

from connectivity.web.schema import Schema
from connectivity.web.fields import Money, PageCursor, PageLimit, PartnerCode, QueryFlag
from connectivity.mapping.schemas import CancellationPolicySchema
from connectivity.bookings.schemas import (DEFAULT_LIST_SIZE, MAX_LIST_SIZE, ContactSchema,
                                           GuestSchema, StayNightSchema)

STATUSES = ["confirmed", "cancelled"]
HOTEL_CONFIRMATION_CODE = r"^[A-Za-z0-9._/-]{1,64}$"
HOTEL_CONFIRMATION_CODE_RE = re.compile(r"^[A-Za-z0-9._/-]{1,64}\Z")


class HotelBookingEventSchema(Schema):
    """`data.booking` of the hotel_booking.* events, in the receiver's codes (records.py
    hotel_booking gives the values; these dump them as BookingSchema dumps the booking's)."""
    confirmation_number = fields.String(required=True, metadata={
        "description": "the service's number of the booking: what the hotel acknowledges"})
    status = fields.String(required=True, metadata={"enum": STATUSES})
    check_in = fields.Date(required=True)
    check_out = fields.Date(required=True)
    rooms = fields.Integer(required=True)
    nights = fields.List(fields.Nested(StayNightSchema), required=True)
    total_amount = Money(required=True)
    currency = fields.String(required=True)
    cancellation_policy = fields.Nested(CancellationPolicySchema, required=True)
    guests = fields.List(fields.Nested(GuestSchema), required=True, allow_none=True, metadata={
        "description": "null once `guest_data_purged`"})
    contact = fields.Nested(ContactSchema, required=True, allow_none=True, metadata={
        "description": "null once `guest_data_purged`"})
    created_at = fields.DateTime(required=True)
    cancelled_at = fields.DateTime(required=True, allow_none=True)
    penalty_amount = Money(required=True, allow_none=True)
    hotel_code = fields.String(required=True, metadata={"description": "your code of the hotel"})
    room_type_code = fields.String(required=True, allow_none=True, metadata={
        "description": "your code of the room type; null when you map none (see `unmapped`)"})
    rate_plan_code = fields.String(required=True, allow_none=True, metadata={
        "description": "your code of the rate plan; null when you map none (see `unmapped`)"})
    channel_name = fields.String(required=True, metadata={
        "description": "the booking partner's display name"})
    unmapped = fields.List(fields.String(validate=validate.OneOf(["room_type", "rate_plan"])),
                           required=True, metadata={
                               "description": "the levels you have no code for"})


class HotelBookingSchema(HotelBookingEventSchema):
    acknowledged = fields.Boolean(required=True, metadata={
        "description": "true when the hotel acknowledged the booking's current status; a "
                       "cancellation after an acknowledgement makes it false until the "
                       "cancellation is acknowledged"})
    acknowledged_at = fields.DateTime(required=True, allow_none=True, metadata={
        "description": "when the current status was first acknowledged; null while it is not"})
    hotel_confirmation_code = fields.String(required=True, allow_none=True, metadata={
        "description": "the hotel's own code, as last acknowledged with it; null until given"})
    guest_data_purged = fields.Boolean(required=True, metadata={
        "description": "true once the guests' personal data expired: `guests` and `contact` "
                       "are then null (the hotel_booking.* events show the same once purged)"})
    guest_data_purged_at = fields.DateTime(required=True, allow_none=True)


class HotelBookingDataSchema(Schema):
    hotel_booking = fields.Nested(HotelBookingSchema, required=True)


class HotelBookingListQuerySchema(Schema):
    hotel_code = PartnerCode(metadata={
        "description": "only this hotel's bookings (your code); one you do not receive "
                       "bookings for gives an empty list"})
    status = fields.String(validate=validate.OneOf(STATUSES))
    acknowledged = QueryFlag(metadata={
        "description": "`false`: only the bookings whose current status the hotel has not "
                       "acknowledged (what is still to load); `true`: only the others"})
    cursor = PageCursor("opaque, as `next_cursor` gave it, with the same filters it was issued "
                        "for (otherwise 422 naming `cursor`)")
    limit = PageLimit(DEFAULT_LIST_SIZE, MAX_LIST_SIZE, "hotel bookings")


class HotelBookingListSchema(Schema):
    hotel_bookings = fields.List(fields.Nested(HotelBookingSchema), required=True, metadata={
        "description": "oldest `created_at` first"})
    next_cursor = fields.String(required=True, allow_none=True, metadata={
        "description": "null exactly when `has_more` is false"})
    has_more = fields.Boolean(required=True)


class AcknowledgeRequestSchema(Schema):
    status = fields.String(required=True, validate=validate.OneOf(STATUSES), metadata={
        "description": "the status the hotel's system loaded; must be the booking's current "
                       "one (409 `status_changed` otherwise, nothing stored)"})
    hotel_confirmation_code = fields.String(
        validate=validate.Regexp(HOTEL_CONFIRMATION_CODE_RE,
                                 error="must be 1-64 characters of A-Z, a-z, 0-9, '.', '_', "
                                       "'/' and '-'"),
        metadata={"pattern": HOTEL_CONFIRMATION_CODE, "example": "LIS-88213",
                  "description": "the hotel's own confirmation code; replaces the stored one, "
                                 "left out keeps it"})
