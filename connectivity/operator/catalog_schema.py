"""The shape of a catalogue file (contract section 9) and the rules checked before anything is
written. Rules that need the database (a mapping's property loaded earlier) are checked by the
loader, inside its transaction."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from connectivity.web import validators

# The database's CHECK on every name: 1 to 200 characters.
NAME = validate.Length(1, 200)
# A room type's and a rate plan's most guests.
MAX_OCCUPANCY = validate.Range(1, 50)


def _unique(items, key, field_name):
    seen = set()
    for i, item in enumerate(items):
        if item[key] in seen:
            raise ValidationError({field_name: {i: {key: [f"duplicate {key} {item[key]!r}"]}}})
        seen.add(item[key])


class PenaltySchema(Schema):
    type = fields.String(required=True, validate=validate.OneOf(("nights", "percent", "amount")))
    value = fields.Decimal(required=True, validate=validate.Range(min=0), as_string=False)

    @validates_schema
    def _percent(self, data, **_):
        if data["type"] == "percent" and data["value"] > 100:
            raise ValidationError({"value": ["a percent penalty is at most 100"]})
        if data["type"] == "nights" and data["value"] != int(data["value"]):
            raise ValidationError({"value": ["a nights penalty is a whole number of nights"]})


class TierSchema(Schema):
    within_hours = fields.Integer(required=True, strict=True,
                                  validate=validate.Range(min=0, max=24 * 730))
    penalty = fields.Nested(PenaltySchema, required=True)


class CancellationPolicySchema(Schema):
    non_refundable = fields.Boolean(required=True)
    tiers = fields.List(fields.Nested(TierSchema), load_default=list)


class RoomTypeSchema(Schema):
    code = fields.String(required=True, validate=validators.internal_code)
    name = fields.String(required=True, validate=NAME)
    max_occupancy = fields.Integer(required=True, strict=True, validate=MAX_OCCUPANCY)


class RatePlanSchema(Schema):
    code = fields.String(required=True, validate=validators.internal_code)
    name = fields.String(required=True, validate=NAME)
    board_type = fields.String(required=True, validate=validate.OneOf(validators.BOARD_TYPES))
    currency = fields.String(required=True, validate=validators.currency_code)
    room_types = fields.List(fields.String(validate=validators.internal_code), required=True,
                             validate=validate.Length(min=1))
    base_adults = fields.Integer(required=True, strict=True,
                                 validate=validate.Range(*validators.ADULTS))
    max_adults = fields.Integer(required=True, strict=True,
                                validate=validate.Range(*validators.ADULTS))
    max_children = fields.Integer(required=True, strict=True,
                                  validate=validate.Range(*validators.CHILDREN))
    max_occupancy = fields.Integer(required=True, strict=True, validate=MAX_OCCUPANCY)
    allowed_nationalities = fields.List(fields.String(validate=validators.country_code),
                                        load_default=list)
    blocked_nationalities = fields.List(fields.String(validate=validators.country_code),
                                        load_default=list)
    cancellation_policy = fields.Nested(CancellationPolicySchema, required=True)

    @validates_schema
    def _occupancy(self, data, **_):
        if data["base_adults"] > data["max_adults"]:
            raise ValidationError({"base_adults": ["must not exceed max_adults"]})
        if data["max_adults"] > data["max_occupancy"]:
            raise ValidationError({"max_adults": ["must not exceed max_occupancy"]})


class PropertySchema(Schema):
    code = fields.String(required=True, validate=validators.internal_code)
    name = fields.String(required=True, validate=NAME)
    environment = fields.String(required=True, validate=validate.OneOf(validators.ENVIRONMENTS))
    country = fields.String(required=True, validate=validators.country_code)
    timezone = fields.String(required=True, validate=validators.timezone_name)
    currency = fields.String(required=True, validate=validators.currency_code)
    max_child_age = fields.Integer(required=True, strict=True,
                                   validate=validate.Range(*validators.CHILD_AGE))
    room_types = fields.List(fields.Nested(RoomTypeSchema), load_default=list)
    rate_plans = fields.List(fields.Nested(RatePlanSchema), load_default=list)

    @validates_schema
    def _unique_codes(self, data, **_):
        _unique(data["room_types"], "code", "room_types")
        _unique(data["rate_plans"], "code", "rate_plans")


class MappingSchema(Schema):
    property = fields.String(required=True, validate=validators.internal_code)
    hotel_code = fields.String(required=True, validate=validators.partner_code)
    # The distribution state when the mapping is first created; afterwards only
    # `distribution pause|resume` changes it.
    active = fields.Boolean(load_default=True)
    # Makes this partner the hotel's receiver of hotel_booking.* events (contract 12.2); the
    # file decides it at every load.
    receives_bookings = fields.Boolean(load_default=False)
    room_types = fields.Dict(keys=fields.String(validate=validators.internal_code),
                             values=fields.String(validate=validators.partner_code),
                             load_default=dict)
    rate_plans = fields.Dict(keys=fields.String(validate=validators.internal_code),
                             values=fields.String(validate=validators.partner_code),
                             load_default=dict)

    @validates_schema
    def _codes_unique(self, data, **_):
        for kind in ("room_types", "rate_plans"):
            codes = list(data[kind].values())
            if len(codes) != len(set(codes)):
                raise ValidationError({kind: ["two entries share one partner code"]})


class PartnerSchema(Schema):
    code = fields.String(required=True, validate=validators.internal_code)
    name = fields.String(required=True, validate=NAME)
    mappings = fields.List(fields.Nested(MappingSchema), load_default=list)

    @validates_schema
    def _one_mapping_per_property(self, data, **_):
        _unique(data["mappings"], "property", "mappings")


def _storable_rate(value) -> None:
    # fx_rates.rate is numeric(20, 10): refuse what it would round or overflow, rather than
    # store a rate other than the one given.
    if value.as_tuple().exponent < -10:
        raise ValidationError("at most 10 decimal places")
    if value >= 10 ** 10:
        raise ValidationError("must be below 10000000000")


class FxRateSchema(Schema):
    base = fields.String(required=True, validate=validators.currency_code)
    quote = fields.String(required=True, validate=validators.currency_code)
    rate = fields.Decimal(required=True, places=None, validate=[
        validate.Range(min=0, min_inclusive=False), _storable_rate])

    @validates_schema
    def _distinct(self, data, **_):
        if data["base"] == data["quote"]:
            raise ValidationError({"quote": ["must differ from base"]})


class CatalogSchema(Schema):
    properties = fields.List(fields.Nested(PropertySchema), load_default=list)
    partners = fields.List(fields.Nested(PartnerSchema), load_default=list)
    fx_rates = fields.List(fields.Nested(FxRateSchema), load_default=list)

    @validates_schema
    def _unique(self, data, **_):
        _unique(data["properties"], "code", "properties")
        _unique(data["partners"], "code", "partners")
