"""Requests of POST /reservations, /reservations/{reference}/cancel and /modify, with the field
rules of the specification's tables (and contract 10's reference pattern). Every failing path
is reported at once (422 `validation_failed`)."""

from __future__ import annotations

from marshmallow import ValidationError, fields, validate, validates_schema

from connectivity.web.schema import Schema
from connectivity.availability.schemas import MAX_NIGHTS, stay_date_errors
from connectivity.pricing.stay_nights import stay_nights
from connectivity.web.fields import (
    Amount,
    CountryCode,
    CurrencyCode,
    Day,
    EmailAddress,
    Flag,
    PartnerCode,
    Reference,
    Text,
)
from connectivity.web.validators import ADULTS, CHILD_AGE, CHILDREN, ROOMS

STATUSES = ("confirmed", "cancelled", "modified")
ROOM_LINES = (1, 50)
# The most rooms one reservation can hold (every room line with the most rooms), and the most
# guests (every one of those rooms with the most adults and children).
MAX_ROOMS_TOTAL = ROOM_LINES[1] * ROOMS[1]
MAX_GUESTS = MAX_ROOMS_TOTAL * (ADULTS[1] + CHILDREN[1])


class NightlyRateSchema(Schema):
    date = Day(required=True)
    amount = Amount(required=True, metadata={"description": "for one room unit, that night"})


class PushedRoomSchema(Schema):
    room_type_code = PartnerCode(required=True, metadata={
        "description": "an unmapped code is accepted, kept and flagged `unmapped_room_type`"})
    rate_plan_code = PartnerCode(metadata={
        "description": "an unmapped code is accepted, kept and flagged `unmapped_rate_plan`"})
    quantity = fields.Integer(required=True, strict=True, validate=validate.Range(*ROOMS))
    adults = fields.Integer(required=True, strict=True, validate=validate.Range(*ADULTS),
                            metadata={"description": "at least 1: a room with no adult is "
                                                     "rejected"})
    children = fields.Integer(strict=True, validate=validate.Range(*CHILDREN))
    child_ages = fields.List(fields.Integer(strict=True, validate=validate.Range(*CHILD_AGE)),
                             validate=validate.Length(max=CHILDREN[1]))
    nightly_rates = fields.List(fields.Nested(NightlyRateSchema), validate=validate.Length(
        max=MAX_NIGHTS), metadata={"description": "per room unit, one entry per night of the "
                                                  "stay; without it the total is unverified"})


class ReservationGuestSchema(Schema):
    room_number = fields.Integer(required=True, strict=True,
                                 validate=validate.Range(1, MAX_ROOMS_TOTAL))
    first_name = Text(100, required=True)
    last_name = Text(100)
    is_adult = Flag(required=True)
    nationality = CountryCode()


class ReservationContactSchema(Schema):
    email = EmailAddress()
    phone = Text(50)


class ReservationRequestSchema(Schema):
    partner_reference = Reference(required=True, metadata={
        "description": "the idempotency key (the channel's id)"})
    guest_confirmation = Text(120)
    hotel_code = PartnerCode(required=True, metadata={
        "description": "mapped for the caller (a paused mapping still accepts reservations)"})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    check_in = Day(required=True)
    check_out = Day(required=True, metadata={
        "description": f"after check_in; at most {MAX_NIGHTS} nights"})
    rooms = fields.List(fields.Nested(PushedRoomSchema), required=True,
                        validate=validate.Length(*ROOM_LINES))
    guests = fields.List(fields.Nested(ReservationGuestSchema), required=True,
                         validate=validate.Length(1, MAX_GUESTS))
    contact = fields.Nested(ReservationContactSchema)
    sell_amount = Amount(metadata={"description": "what the guest paid the channel; needs "
                                                  "`sell_currency`"})
    sell_currency = CurrencyCode()
    net_amount = Amount(required=True, metadata={
        "description": "what the channel owes the service"})
    net_currency = CurrencyCode(required=True)
    is_non_refundable = Flag()
    cancellation_deadline = Day()
    special_requests = Text(2000, lines=True)
    booked_at = Day()

    @validates_schema(skip_on_field_errors=False)
    def _consistent(self, data, **_):
        errors = stay_date_errors(data, arrival_may_be_past=True)
        if ("sell_amount" in data) != ("sell_currency" in data):
            errors["sell_currency" if "sell_amount" in data else "sell_amount"] = [
                "sell_amount and sell_currency are sent together"]
        nights = (stay_nights(data["check_in"], data["check_out"])
                  if "check_in" in data and "check_out" in data else [])
        for i, room in enumerate(data.get("rooms") or []):
            rates = room.get("nightly_rates")
            if not nights or not rates:
                continue
            # An entry whose date failed its own rules is reported there; the dates are judged
            # together only once each is a date.
            dates = [r.get("date") for r in rates]
            if None in dates:
                continue
            outside = sorted({d for d in dates if d not in nights})
            if outside:
                errors[f"rooms.{i}.nightly_rates"] = [
                    "dates outside the stay: " + ", ".join(d.isoformat() for d in outside)]
            elif len(set(dates)) != len(dates):
                errors[f"rooms.{i}.nightly_rates"] = ["a night is listed more than once"]
        if errors:
            raise ValidationError(errors)


class ReservationCancelRequestSchema(Schema):
    hotel_code = PartnerCode(metadata={"description": (
        "the reservation's hotel, mapped for the caller. Optional; when it is sent for a "
        "reservation received before, it must be that reservation's hotel")})
    cancelled_at = Day(metadata={"description": "the day the guest cancelled; else the day "
                                                "the cancellation arrived (property time)"})
    reason = Text(500, lines=True)
    penalty_amount = Amount(metadata={"description": "the partner's claim; recorded, not applied"})
    penalty_currency = CurrencyCode(metadata={"description": "ISO 4217; default the reservation's "
                                                         "`net_currency`"})


class ModifiedRoomSchema(Schema):
    room_type_code = PartnerCode(required=True)
    quantity = fields.Integer(required=True, strict=True, validate=validate.Range(*ROOMS))
    adults = fields.Integer(required=True, strict=True, validate=validate.Range(*ADULTS))
    children = fields.Integer(strict=True, validate=validate.Range(*CHILDREN))


class ModifyRequestSchema(Schema):
    hotel_code = PartnerCode(metadata={"description": (
        "the reservation's hotel, mapped for the caller. Optional; when it is sent for a "
        "reservation received before, it must be that reservation's hotel")})
    check_in = Day(required=True)
    check_out = Day(required=True, metadata={
        "description": f"after check_in; at most {MAX_NIGHTS} nights"})
    rooms = fields.List(fields.Nested(ModifiedRoomSchema), required=True,
                        validate=validate.Length(*ROOM_LINES))
    net_amount = Amount(required=True)
    net_currency = CurrencyCode(required=True)
    modified_at = Day()

    @validates_schema(skip_on_field_errors=False)
    def _stay(self, data, **_):
        errors = stay_date_errors(data, arrival_may_be_past=True)
        if errors:
            raise ValidationError(errors)
