from marshmallow import Schema, fields

from connectivity.web.validators import BOARD_TYPES


class PenaltySchema(Schema):
    type = fields.String(required=True, metadata={"enum": ["nights", "percent", "amount"]})
    # As the catalogue wrote it: 1 night stays 1, not 1.0.
    value = fields.Raw(required=True, metadata={"type": "number"})


class PolicyTierSchema(Schema):
    within_hours = fields.Integer(required=True, metadata={
        "description": "applies when the cancellation is this many hours or fewer before "
                       "00:00 of the check-in date, property time"})
    penalty = fields.Nested(PenaltySchema, required=True)


class CancellationPolicySchema(Schema):
    non_refundable = fields.Boolean(required=True)
    tiers = fields.List(fields.Nested(PolicyTierSchema), required=True)


class HotelSummarySchema(Schema):
    hotel_code = fields.String(required=True)
    name = fields.String(required=True)
    country = fields.String(required=True)
    currency = fields.String(required=True)
    max_child_age = fields.Integer(required=True)


class HotelListSchema(Schema):
    hotels = fields.List(fields.Nested(HotelSummarySchema), required=True)


class MappedRoomTypeSchema(Schema):
    room_type_code = fields.String(required=True)
    name = fields.String(required=True)
    max_occupancy = fields.Integer(required=True)


class RatePlanOccupancySchema(Schema):
    base_adults = fields.Integer(required=True)
    max_adults = fields.Integer(required=True)
    max_children = fields.Integer(required=True)
    max_occupancy = fields.Integer(required=True)


class MappedRatePlanSchema(Schema):
    rate_plan_code = fields.String(required=True)
    name = fields.String(required=True)
    board_type = fields.String(required=True, metadata={"enum": list(BOARD_TYPES)})
    currency = fields.String(required=True)
    room_type_codes = fields.List(fields.String(), required=True)
    occupancy = fields.Nested(RatePlanOccupancySchema, required=True)
    cancellation_policy = fields.Nested(CancellationPolicySchema, required=True)


class HotelDetailSchema(HotelSummarySchema):
    timezone = fields.String(required=True)
    receives_bookings = fields.Boolean(required=True, metadata={
        "description": "true when this partner is the hotel's receiver of bookings made by other "
                       "partners: each becomes a `hotel_booking.confirmed` / "
                       "`hotel_booking.cancelled` event in GET /events (set by the operator)"})
    room_types = fields.List(fields.Nested(MappedRoomTypeSchema), required=True)
    rate_plans = fields.List(fields.Nested(MappedRatePlanSchema), required=True)


class HotelDetailDataSchema(Schema):
    hotel = fields.Nested(HotelDetailSchema, required=True)
