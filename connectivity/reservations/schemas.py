"""Requests of POST /reservations, /reservations/{reference}/cancel and /modify, with the field
rules of the specification's tables (and contract 10's reference pattern). Every failing path
is reported at once (422 `validation_failed`)."""

from __future__ import annotations

import datetime as dt
import re

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from .. import validators
from ..availability.schemas import MAX_NIGHTS
from ..schema_fields import Amount, Day, Flag

REFERENCE_RE = re.compile(r"^[A-Za-z0-9._-]{1,120}\Z")
STATUSES = ("confirmed", "cancelled", "modified")
# 50 room lines of 30 rooms: the most rooms one reservation can hold.
MAX_ROOMS_TOTAL = 50 * 30


# Text PostgreSQL cannot store (U+0000, lone surrogates) never gets here: connectivity.wire
# refuses it in any body with a 422 naming its place.
def text(max_length: int, **kwargs) -> fields.String:
    return fields.String(validate=validate.Length(min=1, max=max_length), **kwargs)


# validators.PARTNER_CODE_RE in the description's (ECMA 262) regex dialect.
PARTNER_CODE_PATTERN = r"^[^/\x00-\x1f\x7f-\x9f]{1,120}$"


def code(**kwargs) -> fields.String:
    """A partner's own code: what the catalogue can map (1-120 characters, no '/')."""
    # The rule in the description too, so that a client generated from it knows it.
    kwargs["metadata"] = {"pattern": PARTNER_CODE_PATTERN, **kwargs.get("metadata", {})}
    return fields.String(validate=validators.partner_code, **kwargs)


def currency(**kwargs) -> fields.String:
    kwargs.setdefault("metadata", {"description": "ISO 4217"})
    return fields.String(validate=validators.currency_code, **kwargs)


def _nights_of(data: dict) -> list[dt.date] | None:
    check_in, check_out = data.get("check_in"), data.get("check_out")
    if check_in is None or check_out is None or check_out <= check_in:
        return None
    return [check_in + dt.timedelta(days=i) for i in range((check_out - check_in).days)]


def stay_errors(data: dict) -> dict[str, list[str]]:
    check_in, check_out = data.get("check_in"), data.get("check_out")
    if check_in is None or check_out is None:
        return {}
    if check_out <= check_in:
        return {"check_out": ["must be after check_in"]}
    if (check_out - check_in).days > MAX_NIGHTS:
        return {"check_out": [f"a stay is at most {MAX_NIGHTS} nights"]}
    return {}


class NightlyRateSchema(Schema):
    date = Day(required=True)
    amount = Amount(required=True, metadata={"description": "for one room unit, that night"})


class PushedRoomSchema(Schema):
    room_type_code = code(required=True, metadata={
        "description": "an unmapped code is accepted, kept and flagged `unmapped_room_type`"})
    rate_plan_code = code(metadata={
        "description": "an unmapped code is accepted, kept and flagged `unmapped_rate_plan`"})
    quantity = fields.Integer(required=True, strict=True, validate=validate.Range(1, 30))
    adults = fields.Integer(required=True, strict=True, validate=validate.Range(1, 20),
                            metadata={"description": "at least 1: a room with no adult is "
                                                     "rejected"})
    children = fields.Integer(strict=True, validate=validate.Range(0, 10))
    child_ages = fields.List(fields.Integer(strict=True, validate=validate.Range(0, 17)),
                             validate=validate.Length(max=10))
    nightly_rates = fields.List(fields.Nested(NightlyRateSchema), validate=validate.Length(
        max=MAX_NIGHTS), metadata={"description": "per room unit, one entry per night of the "
                                                  "stay; without it the total is unverified"})


class ReservationGuestSchema(Schema):
    room_number = fields.Integer(required=True, strict=True,
                                 validate=validate.Range(1, MAX_ROOMS_TOTAL))
    first_name = text(100, required=True)
    last_name = text(100)
    is_adult = Flag(required=True)
    nationality = fields.String(validate=validators.country_code,
                                metadata={"description": "ISO 3166-1 alpha-2"})


class ReservationContactSchema(Schema):
    email = fields.String(validate=validators.email_address,
                          metadata={"format": "email", "maxLength": 255})
    phone = text(50)


class ReservationRequestSchema(Schema):
    partner_reference = fields.String(required=True, validate=validate.Regexp(
        REFERENCE_RE, error="must be 1-120 characters of letters, digits, '.', '_' or '-'"),
        metadata={"description": "the idempotency key (the channel's id)",
                  "pattern": "^[A-Za-z0-9._-]{1,120}$"})
    guest_confirmation = text(120)
    hotel_code = code(required=True, metadata={
        "description": "mapped for the caller (a paused mapping still accepts reservations)"})
    status = fields.String(required=True, validate=validate.OneOf(STATUSES))
    check_in = Day(required=True)
    check_out = Day(required=True, metadata={
        "description": f"after check_in; at most {MAX_NIGHTS} nights"})
    rooms = fields.List(fields.Nested(PushedRoomSchema), required=True,
                        validate=validate.Length(1, 50))
    guests = fields.List(fields.Nested(ReservationGuestSchema), required=True,
                         validate=validate.Length(1, MAX_ROOMS_TOTAL * 30))
    contact = fields.Nested(ReservationContactSchema)
    sell_amount = Amount(metadata={"description": "what the guest paid the channel; needs "
                                                  "`sell_currency`"})
    sell_currency = currency()
    net_amount = Amount(required=True, metadata={
        "description": "what the channel owes the service"})
    net_currency = currency(required=True)
    is_non_refundable = Flag()
    cancellation_deadline = Day()
    special_requests = text(2000)
    booked_at = Day()

    @validates_schema(skip_on_field_errors=False)
    def _consistent(self, data, **_):
        errors = stay_errors(data)
        if ("sell_amount" in data) != ("sell_currency" in data):
            errors["sell_currency" if "sell_amount" in data else "sell_amount"] = [
                "sell_amount and sell_currency are sent together"]
        nights = _nights_of(data)
        for i, room in enumerate(data.get("rooms") or []):
            rates = room.get("nightly_rates")
            if nights is None or not rates:
                continue
            dates = [r["date"] for r in rates]
            outside = sorted({d for d in dates if d not in nights})
            if outside:
                errors[f"rooms.{i}.nightly_rates"] = [
                    "dates outside the stay: " + ", ".join(d.isoformat() for d in outside)]
            elif len(set(dates)) != len(dates):
                errors[f"rooms.{i}.nightly_rates"] = ["a night is listed more than once"]
        if errors:
            raise ValidationError(errors)


class ReservationCancelRequestSchema(Schema):
    cancelled_at = Day(metadata={"description": "the day the guest cancelled; else the day "
                                                "the cancellation arrived (property time)"})
    reason = text(500)
    penalty_amount = Amount(metadata={"description": "the partner's claim; recorded, not applied"})
    penalty_currency = currency(metadata={"description": "ISO 4217; default the reservation's "
                                                         "`net_currency`"})


class ModifiedRoomSchema(Schema):
    room_type_code = code(required=True)
    quantity = fields.Integer(required=True, strict=True, validate=validate.Range(1, 30))
    adults = fields.Integer(required=True, strict=True, validate=validate.Range(1, 20))
    children = fields.Integer(strict=True, validate=validate.Range(0, 10))


class ModifyRequestSchema(Schema):
    check_in = Day(required=True)
    check_out = Day(required=True, metadata={
        "description": f"after check_in; at most {MAX_NIGHTS} nights"})
    rooms = fields.List(fields.Nested(ModifiedRoomSchema), required=True,
                        validate=validate.Length(1, 50))
    net_amount = Amount(required=True)
    net_currency = currency(required=True)
    modified_at = Day()

    @validates_schema(skip_on_field_errors=False)
    def _stay(self, data, **_):
        errors = stay_errors(data)
        if errors:
            raise ValidationError(errors)
