"""Requests and responses of POST /availability/search and /availability/rates, with the field
rules of the specification's tables. Every failing path is reported at once (422
`validation_failed`), so the stay-level checks run even when a field has failed."""

from __future__ import annotations

import datetime as dt

from marshmallow import ValidationError, fields, validate, validates_schema

from connectivity.web.schema import Schema
from connectivity.mapping.schemas import CancellationPolicySchema
from connectivity.pricing.sellability import REASONS
from connectivity.web.fields import (CountryCode, CurrencyCode, Day, Money, PageCursor,
                                     PageLimit, PartnerCode, PartnerCodes)
from connectivity.web.validators import ADULTS, BOARD_TYPES, CHILD_AGE, CHILDREN, ROOMS
from connectivity.availability.changes import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE

# The specification bounds neither; a serious API does. A stay longer than a year is not a
# hotel stay, and min_stay/max_stay themselves stop at 365.
MAX_NIGHTS = 365
# "Today" is the property's (contract section 10). No place on earth is more than 14 hours
# ahead of UTC nor 12 behind, so the schema refuses what is in the past everywhere and the
# service checks the rest against each property's timezone.
EARLIEST_OFFSET = dt.timedelta(hours=-12)


def earliest_today() -> dt.date:
    return (dt.datetime.now(dt.timezone.utc) + EARLIEST_OFFSET).date()


def stay_date_errors(data: dict, *, arrival_may_be_past: bool = False) -> dict[str, list[str]]:
    """The date rules of every stay: search, rates, quote and booking, and (their arrival may
    be past: a channel delivers what already happened) pushed reservations and modifications.
    A date that failed its own field rules is absent here and judged no further."""
    errors: dict[str, list[str]] = {}
    check_in, check_out = data.get("check_in"), data.get("check_out")
    if not arrival_may_be_past and check_in is not None and check_in < earliest_today():
        errors["check_in"] = ["must be today or later"]
    if check_in is not None and check_out is not None:
        if check_out <= check_in:
            errors["check_out"] = ["must be after check_in (same-day stays are not sold here)"]
        elif (check_out - check_in).days > MAX_NIGHTS:
            errors["check_out"] = [f"a stay is at most {MAX_NIGHTS} nights"]
    return errors


class OccupancySchema(Schema):
    adults = fields.Integer(required=True, strict=True, validate=validate.Range(*ADULTS))
    children = fields.Integer(strict=True, validate=validate.Range(*CHILDREN), metadata={
        "description": "default 0"})
    child_ages = fields.List(
        fields.Integer(strict=True, validate=validate.Range(*CHILD_AGE)),
        validate=validate.Length(max=CHILDREN[1]),
        metadata={"description": "exactly `children` entries when sent; a child older than the "
                                 "property's `max_child_age` is priced as an adult"})

    @validates_schema(skip_on_field_errors=False)
    def _ages_match_children(self, data, **_):
        ages = data.get("child_ages")
        if ages is not None and len(ages) != data.get("children", 0):
            raise ValidationError(f"must have exactly `children` ({data.get('children', 0)}) "
                                  f"entries, {len(ages)} given", "child_ages")


class StaySchema(Schema):
    """The stay of a search, rates or quote request."""

    check_in = Day(required=True, metadata={"description": "today or later, property time"})
    check_out = Day(required=True, metadata={
        "description": f"after check_in; at most {MAX_NIGHTS} nights"})
    rooms = fields.Integer(required=True, strict=True, validate=validate.Range(*ROOMS))
    occupancy = fields.List(fields.Nested(OccupancySchema), required=True,
                            validate=validate.Length(min=1, max=ROOMS[1]), metadata={
                                "description": "one entry applied to every room, or exactly "
                                               "`rooms` entries (one per room)"})
    nationality = CountryCode()
    currency = CurrencyCode(metadata={"description": "ISO 4217; prices are converted into it"})

    @validates_schema(skip_on_field_errors=False)
    def _stay(self, data, **_):
        errors = stay_date_errors(data)
        rooms, occupancy = data.get("rooms"), data.get("occupancy")
        if rooms is not None and occupancy is not None and len(occupancy) not in (1, rooms):
            errors["occupancy"] = [f"must have 1 entry (applied to every room) or exactly "
                                   f"{rooms} (one per room), {len(occupancy)} given"]
        if errors:
            raise ValidationError(errors)


class SearchRequestSchema(StaySchema):
    hotel_codes = PartnerCodes(required=True, validate=validate.Length(1, 200),
                               metadata={"description": "the partner's hotel codes, 1-200"})


class RatesRequestSchema(StaySchema):
    hotel_code = PartnerCode(required=True)
    room_type_codes = PartnerCodes(validate=validate.Length(max=100), metadata={
        "description": "narrows the answer to these codes"})
    rate_plan_codes = PartnerCodes(validate=validate.Length(max=100), metadata={
        "description": "narrows the answer to these codes"})


class SearchHotelSchema(Schema):
    hotel_code = fields.String(required=True)
    available = fields.Boolean(required=True, metadata={
        "description": "some room type and rate plan is sellable for the whole stay"})
    lowest_total_amount = Money(required=True, allow_none=True, metadata={
        "description": "cheapest whole-stay total for the requested rooms and occupancy; "
                       "null when not available"})
    currency = fields.String(required=True)


class SearchResultSchema(Schema):
    hotels = fields.List(fields.Nested(SearchHotelSchema), required=True, metadata={
        "description": "one entry per requested code mapped and active for the caller"})
    unknown_hotel_codes = fields.List(fields.String(), required=True, metadata={
        "description": "every requested code not mapped and active for the caller in the "
                       "key's environment: a typo, another environment's code, or a hotel whose "
                       "distribution is paused"})
    paused_hotel_codes = fields.List(fields.String(), required=True, metadata={
        "description": "the codes of `unknown_hotel_codes` that the caller maps but whose "
                       "distribution is paused: not sold until resumed (the `mapping.paused` "
                       "event tells of a pause)"})


class NightSchema(Schema):
    date = fields.Date(required=True)
    amount = Money(required=True, allow_none=True, metadata={
        "description": "the night's price for all the stay's rooms; null without a rate"})
    available_rooms = fields.Integer(required=True)
    closed = fields.Boolean(required=True)
    min_stay = fields.Integer(required=True, allow_none=True)
    max_stay = fields.Integer(required=True, allow_none=True)
    closed_to_arrival = fields.Boolean(required=True)
    closed_to_departure = fields.Boolean(required=True)


class RatePlanRatesSchema(Schema):
    rate_plan_code = fields.String(required=True)
    board_type = fields.String(required=True, metadata={"enum": list(BOARD_TYPES)})
    sellable = fields.Boolean(required=True)
    reasons = fields.List(fields.String(metadata={"enum": list(REASONS)}), required=True)
    total_amount = Money(required=True, allow_none=True, metadata={
        "description": "sum of the nights' amounts; null when a night has no rate"})
    nights = fields.List(fields.Nested(NightSchema), required=True)
    cancellation_policy = fields.Nested(CancellationPolicySchema, required=True)


class RoomTypeRatesSchema(Schema):
    room_type_code = fields.String(required=True)
    rate_plans = fields.List(fields.Nested(RatePlanRatesSchema), required=True)


class RatesResultSchema(Schema):
    hotel_code = fields.String(required=True)
    check_in = fields.Date(required=True)
    check_out = fields.Date(required=True)
    currency = fields.String(required=True)
    room_types = fields.List(fields.Nested(RoomTypeRatesSchema), required=True)


# GET /availability/changes (contract 11.3) --------------------------------------------------

CHANGE_KINDS = ("availability", "rate", "restrictions", "distribution", "content")


class ChangesQuerySchema(Schema):
    cursor = PageCursor("opaque, as `next_cursor` gave it to this key; absent: answer the "
                        "current position and no change")
    limit = PageLimit(DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, "changes")


class ChangeSchema(Schema):
    hotel_code = fields.String(required=True)
    room_type_code = fields.String(required=True, allow_none=True, metadata={
        "description": "null for `distribution` and `content`"})
    rate_plan_code = fields.String(required=True, allow_none=True, metadata={
        "description": "null when the change is at the room-type level, and for "
                       "`distribution` and `content`"})
    from_date = fields.Date(required=True, allow_none=True)
    to_date = fields.Date(required=True, allow_none=True, metadata={
        "description": "inclusive; the range may cover dates that did not change"})
    kinds = fields.List(fields.String(metadata={"enum": list(CHANGE_KINDS)}), required=True)
    changed_at = fields.AwareDateTime(required=True)


class ChangesSchema(Schema):
    changes = fields.List(fields.Nested(ChangeSchema), required=True, metadata={
        "description": "oldest first; at least once (a change may appear again), never less"})
    next_cursor = fields.String(required=True, metadata={
        "description": "where the next poll starts"})
    has_more = fields.Boolean(required=True, metadata={
        "description": "true: more changes are ready now, poll again at once"})
