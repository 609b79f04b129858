"""Requests and responses of PUT /ari, PUT /ari/restrictions and GET /ari/batches/{batchId}.

The field rules are the specification's tables: a violation anywhere rejects the whole request
(422 with every failing path) and nothing is stored. What can only be judged against the
catalogue (an unknown code, a currency other than the plan's...) is the worker's: a rejected
row in the batch outcome, while the rest applies."""

from __future__ import annotations

from marshmallow import ValidationError, fields, validate, validates_schema

from connectivity.web.schema import Schema
from connectivity.web.fields import (Amount, CurrencyCode, Day, Flag, Money, PartnerCode,
                                      PartnerCodeList, QueryFlag)
from connectivity.web.validators import PARTNER_CODE_RE
from connectivity.ari.idempotency import HEADER as IDEMPOTENCY_KEY, RETENTION_HOURS
from connectivity.ari.limits import AVAILABILITY, MAX_ARI_ITEMS, MAX_RESTRICTION_ITEMS, STAY_NIGHTS
from connectivity.ari.quick_items import quick_ari_items

STAY_NIGHTS_RANGE = validate.Range(*STAY_NIGHTS)
BATCH_STATUSES = ("queued", "processing", "applied", "partially_applied", "rejected", "failed")
# The codes of a rejected row (contract section 8), with what each means.
REJECTION_CODES = {
    "unknown_room_type": "the room type code is not mapped for this hotel",
    "unknown_rate_plan": "the rate plan code is not mapped for this hotel",
    "rate_plan_not_for_room_type": "the rate plan does not sell this room type",
    "price_without_rate_plan": "a price needs a rate_plan_code (prices belong to a rate plan)",
    "currency_mismatch": "the currency is not the rate plan's",
    "min_stay_above_max_stay": "min_stay is above max_stay",
    "date_in_past": "the date (or the whole range) is before yesterday in the hotel's timezone",
    "date_too_far": "the date (or the range's end) is more than 2 years ahead",
    "sandbox_scenario": "rejected on purpose: the batch was pushed with X-Sandbox-Scenario: "
                        "partially_applied",
}


class RestrictionFields(Schema):
    """Restrictions: on a rate plan when `rate_plan_code` is sent, else on the room type and so
    on every rate plan selling it (contract section 8)."""

    closed = Flag(metadata={
        "description": "not sellable whatever the availability"})
    min_stay = fields.Integer(strict=True, validate=STAY_NIGHTS_RANGE, metadata={
        "description": "nights, judged on the check-in date"})
    max_stay = fields.Integer(strict=True, validate=STAY_NIGHTS_RANGE, metadata={
        "description": "nights, judged on the check-in date"})
    closed_to_arrival = Flag()
    closed_to_departure = Flag()


class AriItemSchema(RestrictionFields):
    room_type_code = PartnerCode(required=True)
    rate_plan_code = PartnerCode(metadata={
        "description": "absent for an update of inventory (or room-type restrictions) only"})
    date = Day(required=True)
    availability = fields.Integer(strict=True, validate=validate.Range(*AVAILABILITY), metadata={
        "description": "rooms left to sell for the room type on this date"})
    rate = Amount(metadata={"description": "per night, per room, in the rate plan's currency"})
    currency = CurrencyCode(metadata={
        "description": "ISO 4217; when sent it must be the rate plan's (else a rejected row)"})
    single_rate = Amount(metadata={"description": "the night's price for one adult"})
    extra_adult_rate = Amount(metadata={"description": "per adult above the plan's base"})
    extra_child_rate = Amount(metadata={"description": "per child"})


class RestrictionItemSchema(RestrictionFields):
    room_type_code = PartnerCode(required=True)
    rate_plan_code = PartnerCode(metadata={
        "description": "absent: the restriction is the room type's, for all its rate plans"})
    from_date = Day(required=True)
    to_date = Day(required=True, metadata={"description": "on or after from_date; inclusive"})
    days_of_week = fields.List(
        fields.Integer(strict=True, validate=validate.Range(0, 6)),
        validate=validate.Length(min=1, max=7),
        metadata={"description": "0 = Monday ... 6 = Sunday; the weekdays of the range it "
                                 "applies to. Absent: all seven (an empty list selects none "
                                 "and is refused)"})

    @validates_schema(skip_on_field_errors=False)
    def _range(self, data, **_):
        start, end = data.get("from_date"), data.get("to_date")
        if start is not None and end is not None and end < start:
            raise ValidationError("must be on or after from_date", "to_date")


class AriRequestSchema(Schema):
    hotel_code = PartnerCode(required=True)
    items = fields.List(fields.Nested(AriItemSchema), required=True,
                        validate=validate.Length(min=1, max=MAX_ARI_ITEMS), metadata={
                            "description": f"1-{MAX_ARI_ITEMS} per-date upserts (a hard cap: "
                                           "split larger pushes)"})

    def load(self, data, *, many=None, partial=None, unknown=None):
        # A request whose every item is plainly valid is read by quick_items, much faster;
        # anything else is read (and judged) by the schema.
        if not many and not partial and isinstance(data, dict) and data.keys() == {
                "hotel_code", "items"}:
            hotel_code = data["hotel_code"]
            if type(hotel_code) is str and PARTNER_CODE_RE.match(hotel_code):
                items = quick_ari_items(data["items"])
                if items is not None:
                    return {"hotel_code": hotel_code, "items": items}
        return super().load(data, many=many, partial=partial, unknown=unknown)


class RestrictionsRequestSchema(Schema):
    hotel_code = PartnerCode(required=True)
    items = fields.List(fields.Nested(RestrictionItemSchema), required=True,
                        validate=validate.Length(min=1, max=MAX_RESTRICTION_ITEMS), metadata={
                            "description": f"1-{MAX_RESTRICTION_ITEMS} date-range upserts"})


class IdempotencyHeaderSchema(Schema):
    """The optional Idempotency-Key header of a push (contract 12.4)."""
    idempotency_key = fields.String(
        data_key=IDEMPOTENCY_KEY, load_default=None,
        validate=validate.Regexp(r"^[!-~]{1,255}\Z", error=(
            "1-255 characters, printable ASCII without spaces")),
        metadata={"description": (
            "Optional. A key of your choosing (1-255 characters, printable ASCII without "
            "spaces; a UUID is a good one), so that a push whose answer was lost in transit "
            "can be sent again safely. A repeat with the same key, path and body (byte for "
            "byte) stores nothing and answers the first 202 again, with the same `batch_id` and "
            "the header `Idempotent-Replayed: true`; two at once store one batch. The same key "
            "with another path or body is 422 `idempotency_key_reused`, nothing stored. Keys "
            f"belong to the partner and environment and are kept at least {RETENTION_HOURS} "
            "hours. A request refused before storing (401, 403, 404, 413, 415, 422, 429, 503) "
            "does not use its key; a dry run neither uses nor reads keys.")})


class BatchAcceptedSchema(Schema):
    batch_id = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": ["queued"]})
    item_count = fields.Integer(required=True)


class RejectedRowSchema(Schema):
    index = fields.Integer(required=True, metadata={"description": "0-based position in items"})
    code = fields.String(required=True, metadata={"enum": sorted(REJECTION_CODES)})
    message = fields.String(required=True)


class BatchOutcomeSchema(Schema):
    batch_id = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": ["ari", "restrictions"]})
    hotel_code = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": list(BATCH_STATUSES)})
    item_count = fields.Integer(required=True)
    applied_count = fields.Integer(required=True)
    rejected_count = fields.Integer(required=True)
    rejected = fields.List(fields.Nested(RejectedRowSchema), required=True)
    received_at = fields.AwareDateTime(required=True)
    applied_at = fields.AwareDateTime(required=True, allow_none=True, metadata={
        "description": "when the outcome was recorded; null while queued or processing"})


# GET /ari (contract 11.1) ------------------------------------------------------------------

MAX_READBACK_DAYS = 366
MAX_READBACK_CODES = 100


class ReadBackQuerySchema(Schema):
    hotel_code = PartnerCode(required=True)
    from_date = Day(required=True)
    to_date = Day(required=True, metadata={
        "description": f"inclusive; on or after from_date and at most {MAX_READBACK_DAYS} days "
                       "after it"})
    room_type_codes = PartnerCodeList(MAX_READBACK_CODES, metadata={
        "description": f"comma-separated, at most {MAX_READBACK_CODES}: only these room types "
                       "(e.g. `ACME-DBL,ACME-SGL`); empty: every mapped room type"})
    rate_plan_codes = PartnerCodeList(MAX_READBACK_CODES, metadata={
        "description": f"comma-separated, at most {MAX_READBACK_CODES}: only these rate plans "
                       "(e.g. `ACME-BAR,ACME-NRF`); empty: every mapped rate plan"})

    @validates_schema(skip_on_field_errors=False)
    def _range(self, data, **_):
        start, end = data.get("from_date"), data.get("to_date")
        if start is None or end is None:
            return
        if end < start:
            raise ValidationError("must be on or after from_date", "to_date")
        if (end - start).days > MAX_READBACK_DAYS:
            raise ValidationError(f"must be at most {MAX_READBACK_DAYS} days after from_date",
                                  "to_date")


def _set_by(fields_: tuple[str, ...]) -> fields.Dict:
    return fields.Dict(
        keys=fields.String(metadata={"enum": list(fields_)}), values=fields.String(),
        required=True, metadata={
            "description": "per field that has a value: the batch_id of the batch whose value "
                           "is in force, or `other_partner` when another partner pushed it",
            "example": {fields_[0]: "6f1c2b1e-4d1a-4c55-9a55-1f3f1d9e2a10"}})


_RESTRICTIONS = ("closed", "min_stay", "max_stay", "closed_to_arrival", "closed_to_departure")


class StoredRestrictionsSchema(Schema):
    """The stored values, null where nothing was ever set."""
    date = fields.Date(required=True)
    closed = fields.Boolean(required=True, allow_none=True)
    min_stay = fields.Integer(required=True, allow_none=True)
    max_stay = fields.Integer(required=True, allow_none=True)
    closed_to_arrival = fields.Boolean(required=True, allow_none=True)
    closed_to_departure = fields.Boolean(required=True, allow_none=True)


class RoomTypeDaySchema(StoredRestrictionsSchema):
    availability = fields.Integer(required=True, allow_none=True, metadata={
        "description": "rooms left to sell"})
    rooms_sold = fields.Integer(required=True, metadata={
        "description": "rooms of the night held by confirmed pull bookings and live pushed "
                       "reservations of every partner"})
    set_by = _set_by(("availability", *_RESTRICTIONS))


class RatePlanDaySchema(StoredRestrictionsSchema):
    rate = Money(required=True, allow_none=True)
    single_rate = Money(required=True, allow_none=True)
    extra_adult_rate = Money(required=True, allow_none=True)
    extra_child_rate = Money(required=True, allow_none=True)
    set_by = _set_by(("rate", "single_rate", "extra_adult_rate", "extra_child_rate",
                      *_RESTRICTIONS))


class ReadBackRatePlanSchema(Schema):
    rate_plan_code = fields.String(required=True)
    currency = fields.String(required=True)
    days = fields.List(fields.Nested(RatePlanDaySchema), required=True)


class ReadBackRoomTypeSchema(Schema):
    room_type_code = fields.String(required=True)
    days = fields.List(fields.Nested(RoomTypeDaySchema), required=True)
    rate_plans = fields.List(fields.Nested(ReadBackRatePlanSchema), required=True)


class ReadBackSchema(Schema):
    hotel_code = fields.String(required=True)
    from_date = fields.Date(required=True)
    to_date = fields.Date(required=True)
    room_types = fields.List(fields.Nested(ReadBackRoomTypeSchema), required=True)


# PUT /ari?dry_run=true, PUT /ari/restrictions?dry_run=true (contract 11.2) -----------------

class DryRunQuerySchema(Schema):
    dry_run = QueryFlag(load_default=False, metadata={
        "description": "true: answer 200 with what the push would do if applied now, and store "
                       "nothing (no batch, no job, no value)"})


class FieldChangeSchema(Schema):
    index = fields.Integer(required=True, metadata={
        "description": "0-based position in items of the item whose value would be in force"})
    room_type_code = fields.String(required=True)
    rate_plan_code = fields.String(required=True, allow_none=True, metadata={
        "description": "null when the field is the room type's (availability, or restrictions "
                       "sent without rate_plan_code)"})
    date = fields.Date(required=True)
    field = fields.String(required=True, metadata={"enum": [
        "availability", "rate", "single_rate", "extra_adult_rate", "extra_child_rate",
        "closed", "min_stay", "max_stay", "closed_to_arrival", "closed_to_departure"]})
    from_ = fields.Raw(required=True, allow_none=True, data_key="from", attribute="from",
                       metadata={"description": "the stored value now, null when never set"})
    to = fields.Raw(required=True, metadata={"description": "the value the push would store"})


class DryRunResultSchema(Schema):
    dry_run = fields.Boolean(required=True, metadata={"enum": [True]})
    item_count = fields.Integer(required=True)
    applied_count = fields.Integer(required=True)
    rejected_count = fields.Integer(required=True)
    rejected = fields.List(fields.Nested(RejectedRowSchema), required=True, metadata={
        "description": "exactly the rows the real push would report rejected if applied now"})
    changes = fields.List(fields.Nested(FieldChangeSchema), required=True, metadata={
        "description": "every stored field the push would change; a restrictions item gives "
                       "one change per date and field"})
