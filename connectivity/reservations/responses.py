"""Response payloads of the push-reservation endpoints (contract 7)."""

from __future__ import annotations

from marshmallow import Schema, fields

from connectivity.web.fields import Money
from connectivity.reservations.schemas import STATUSES

DATE = {"format": "date"}
RECONCILIATION_CODES = (
    "inventory_shortfall", "orphan_cancellation", "unknown_modification",
    "modification_after_cancellation", "unmapped_room_type", "unmapped_rate_plan",
    "nightly_rates_missing", "nightly_rates_mismatch", "penalty_claim_differs")


class NightlyRateOutSchema(Schema):
    date = fields.String(required=True, metadata=DATE)
    amount = Money(required=True)


class RoomOutSchema(Schema):
    room_type_code = fields.String(required=True)
    rate_plan_code = fields.String()
    quantity = fields.Integer(required=True)
    adults = fields.Integer(required=True)
    children = fields.Integer()
    child_ages = fields.List(fields.Integer())
    nightly_rates = fields.List(fields.Nested(NightlyRateOutSchema))


class GuestOutSchema(Schema):
    room_number = fields.Integer(required=True)
    first_name = fields.String(required=True)
    last_name = fields.String()
    is_adult = fields.Boolean(required=True)
    nationality = fields.String()


class ContactOutSchema(Schema):
    email = fields.String()
    phone = fields.String()


class ReservationSchema(Schema):
    partner_reference = fields.String(required=True)
    status = fields.String(required=True, metadata={"enum": list(STATUSES)})
    received = fields.Boolean(required=True, metadata={
        "description": "false while only a cancel or a modify of it has arrived; the fields "
                       "of its content are then null"})
    guest_confirmation = fields.String(allow_none=True)
    hotel_code = fields.String(allow_none=True)
    check_in = fields.String(allow_none=True, metadata=DATE)
    check_out = fields.String(allow_none=True, metadata=DATE)
    rooms = fields.List(fields.Nested(RoomOutSchema), allow_none=True)
    guests = fields.List(fields.Nested(GuestOutSchema), allow_none=True, metadata={
        "description": "null before the reservation arrived, and once `guest_data_purged`"})
    contact = fields.Nested(ContactOutSchema, allow_none=True, metadata={
        "description": "null when not sent, and once `guest_data_purged`"})
    sell_amount = Money(allow_none=True)
    sell_currency = fields.String(allow_none=True)
    net_amount = Money(allow_none=True)
    net_currency = fields.String(allow_none=True)
    is_non_refundable = fields.Boolean(allow_none=True)
    cancellation_deadline = fields.String(allow_none=True, metadata=DATE)
    special_requests = fields.String(allow_none=True)
    booked_at = fields.String(allow_none=True, metadata=DATE)
    modified_at = fields.String(allow_none=True, metadata=DATE)
    received_at = fields.DateTime(allow_none=True, metadata={
        "description": "when the reservation itself arrived"})
    created_at = fields.DateTime(required=True, metadata={
        "description": "when the first delivery of this reference arrived"})
    updated_at = fields.DateTime(required=True)
    version = fields.Integer(required=True, metadata={
        "description": "deliveries of this reference received so far, redeliveries included"})
    guest_data_purged = fields.Boolean(required=True, metadata={
        "description": "true once the guests' personal data expired (the service keeps it for "
                       "a set time after check-out): `guests`, `contact` and "
                       "`special_requests` are then null; the stay, rooms, amounts and "
                       "references stay"})
    guest_data_purged_at = fields.DateTime(required=True, allow_none=True, metadata={
        "description": "when it expired; null while the reservation holds it"})


class AcknowledgementSchema(Schema):
    ack_id = fields.String(required=True, metadata={
        "description": "names the delivery; a redelivery gets the original's"})
    received_at = fields.DateTime(required=True)


class ReconciliationItemSchema(Schema):
    code = fields.String(required=True, metadata={"enum": list(RECONCILIATION_CODES)})
    message = fields.String(required=True)


class DeliveryResultSchema(Schema):
    reservation = fields.Nested(ReservationSchema, required=True)
    acknowledgement = fields.Nested(AcknowledgementSchema, required=True)
    idempotent_replay = fields.Boolean(required=True)
    request_differs = fields.Boolean(metadata={
        "description": "on a redelivery: its body differs from the original's (which stands)"})
    reconciliation = fields.List(fields.Nested(ReconciliationItemSchema), required=True,
                                 metadata={"description": "what this delivery disagrees on; "
                                                          "empty when clean"})


class ReservationPenaltySchema(Schema):
    amount = Money(required=True, allow_none=True, metadata={
        "description": "the service's penalty; null until the reservation is known"})
    currency = fields.String(required=True, allow_none=True)
    partner_claim = Money(required=True, allow_none=True, metadata={
        "description": "the partner's `penalty_amount`, recorded, not applied"})
    partner_claim_currency = fields.String(allow_none=True)


class ReservationCancelResultSchema(DeliveryResultSchema):
    penalty = fields.Nested(ReservationPenaltySchema, required=True)
    orphan = fields.Boolean(required=True, metadata={
        "description": "true when the reservation had not been received"})


# GET /reservations/{reference} (contract 12.1) ----------------------------------------------

class RecordedReservationSchema(ReservationSchema):
    orphan = fields.Boolean(required=True, metadata={
        "description": "true when a cancellation arrived before the reservation itself"})


class ReservationVersionSchema(Schema):
    version = fields.Integer(required=True, metadata={
        "description": "from 1: the first delivery, each modify and the cancel add one "
                       "(a redelivery is not one)"})
    status = fields.String(required=True, metadata={"enum": list(STATUSES)})
    received_at = fields.DateTime(required=True)
    ack_id = fields.String(required=True)


class RecordedItemSchema(ReconciliationItemSchema):
    created_at = fields.DateTime(required=True)
    resolved_at = fields.DateTime(required=True, allow_none=True, metadata={
        "description": "when the operator resolved it; null while open"})


class ReservationRecordSchema(Schema):
    reservation = fields.Nested(RecordedReservationSchema, required=True)
    versions = fields.List(fields.Nested(ReservationVersionSchema), required=True, metadata={
        "description": "oldest first"})
    reconciliation = fields.List(fields.Nested(RecordedItemSchema), required=True, metadata={
        "description": "every item raised by this reservation's deliveries, oldest first"})
