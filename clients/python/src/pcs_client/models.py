"""Typed results. Money is `Decimal` (the service computes with Decimal and sends numbers rounded
to the currency's minor units), dates are `date`, timestamps aware `datetime`. Each result keeps
the answer's `data` in `raw`, so a field the service adds later is never out of reach."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Optional


def _day(value: Optional[str]) -> Optional[dt.date]:
    return dt.date.fromisoformat(value) if value else None


def _time(value: Optional[str]) -> Optional[dt.datetime]:
    return dt.datetime.fromisoformat(value) if value else None


def _money(value: Any) -> Optional[Decimal]:
    return None if value is None else Decimal(str(value))


@dataclass(frozen=True)
class Ping:
    environment: str
    server_time: dt.datetime
    raw: dict = field(repr=False, compare=False)

    @classmethod
    def from_data(cls, data: dict) -> "Ping":
        return cls(data["environment"], _time(data["server_time"]), data)


@dataclass(frozen=True)
class Whoami:
    partner_code: str
    key_id: str
    environment: str
    requires_signature: bool
    scopes: tuple[str, ...]
    mapped_properties: int
    rate_limit_per_minute: int
    raw: dict = field(repr=False, compare=False)

    @classmethod
    def from_data(cls, data: dict) -> "Whoami":
        key = data["key"]
        return cls(data["partner"]["code"], key["key_id"], key["environment"],
                   key["requires_signature"], tuple(data["scopes"]), data["mapped_properties"],
                   key["rate_limit_per_minute"], data)


@dataclass(frozen=True)
class Hotel:
    """A mapped hotel (GET /mapping/hotels); `room_types` and `rate_plans` only from
    GET /mapping/hotels/{hotelCode}, as the service's dicts."""

    hotel_code: str
    name: str
    country: str
    currency: str
    max_child_age: int
    timezone: Optional[str] = None
    room_types: tuple[dict, ...] = ()
    rate_plans: tuple[dict, ...] = ()
    raw: dict = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_data(cls, data: dict) -> "Hotel":
        return cls(data["hotel_code"], data["name"], data["country"], data["currency"],
                   data["max_child_age"], data.get("timezone"),
                   tuple(data.get("room_types", ())), tuple(data.get("rate_plans", ())), data)


@dataclass(frozen=True)
class HotelAvailability:
    hotel_code: str
    available: bool
    lowest_total_amount: Optional[Decimal]
    currency: str


@dataclass(frozen=True)
class SearchResult:
    hotels: tuple[HotelAvailability, ...]
    unknown_hotel_codes: tuple[str, ...]
    raw: dict = field(repr=False, compare=False)

    @classmethod
    def from_data(cls, data: dict) -> "SearchResult":
        return cls(tuple(HotelAvailability(h["hotel_code"], h["available"],
                                           _money(h["lowest_total_amount"]), h["currency"])
                         for h in data["hotels"]),
                   tuple(data["unknown_hotel_codes"]), data)


@dataclass(frozen=True)
class Night:
    date: dt.date
    amount: Optional[Decimal]
    available_rooms: Optional[int] = None


@dataclass(frozen=True)
class RatePlanOffer:
    room_type_code: str
    rate_plan_code: str
    board_type: str
    sellable: bool
    reasons: tuple[str, ...]
    total_amount: Optional[Decimal]
    nights: tuple[Night, ...]
    cancellation_policy: dict


@dataclass(frozen=True)
class RatesResult:
    hotel_code: str
    check_in: dt.date
    check_out: dt.date
    currency: str
    offers: tuple[RatePlanOffer, ...]
    raw: dict = field(repr=False, compare=False)

    @classmethod
    def from_data(cls, data: dict) -> "RatesResult":
        offers = tuple(
            RatePlanOffer(rt["room_type_code"], rp["rate_plan_code"], rp["board_type"],
                          rp["sellable"], tuple(rp["reasons"]), _money(rp["total_amount"]),
                          tuple(Night(_day(n["date"]), _money(n["amount"]),
                                      n.get("available_rooms")) for n in rp["nights"]),
                          rp["cancellation_policy"])
            for rt in data["room_types"] for rp in rt["rate_plans"])
        return cls(data["hotel_code"], _day(data["check_in"]), _day(data["check_out"]),
                   data["currency"], offers, data)

    def sellable(self) -> tuple[RatePlanOffer, ...]:
        return tuple(o for o in self.offers if o.sellable)


@dataclass(frozen=True)
class Quote:
    quote_token: str
    expires_at: dt.datetime
    hotel_code: str
    room_type_code: str
    rate_plan_code: str
    check_in: dt.date
    check_out: dt.date
    rooms: int
    total_amount: Decimal
    currency: str
    nights: tuple[Night, ...]
    cancellation_policy: dict
    raw: dict = field(repr=False, compare=False)

    @classmethod
    def from_data(cls, data: dict) -> "Quote":
        return cls(data["quote_token"], _time(data["expires_at"]), data["hotel_code"],
                   data["room_type_code"], data["rate_plan_code"], _day(data["check_in"]),
                   _day(data["check_out"]), data["rooms"], _money(data["total_amount"]),
                   data["currency"],
                   tuple(Night(_day(n["date"]), _money(n["amount"])) for n in data["nights"]),
                   data["cancellation_policy"], data)


@dataclass(frozen=True)
class Booking:
    partner_reference: str
    confirmation_number: str
    status: str
    hotel_code: str
    room_type_code: str
    rate_plan_code: str
    check_in: dt.date
    check_out: dt.date
    rooms: int
    total_amount: Decimal
    currency: str
    created_at: dt.datetime
    cancelled_at: Optional[dt.datetime]
    penalty_amount: Optional[Decimal]
    # The hotel's answer (contract 13.2): its own code, and when it first loaded the booking.
    hotel_confirmation_code: Optional[str]
    hotel_acknowledged_at: Optional[dt.datetime]
    raw: dict = field(repr=False, compare=False)

    @classmethod
    def from_data(cls, data: dict) -> "Booking":
        return cls(data["partner_reference"], data["confirmation_number"], data["status"],
                   data["hotel_code"], data["room_type_code"], data["rate_plan_code"],
                   _day(data["check_in"]), _day(data["check_out"]), data["rooms"],
                   _money(data["total_amount"]), data["currency"], _time(data["created_at"]),
                   _time(data.get("cancelled_at")), _money(data.get("penalty_amount")),
                   data.get("hotel_confirmation_code"), _time(data.get("hotel_acknowledged_at")),
                   data)


@dataclass(frozen=True)
class HotelBooking:
    """A booking another partner made on a hotel whose bookings you receive (contract 13.2), in
    your codes (None where you map none: named in `unmapped`), with your acknowledgement.
    `raw` has the rest (guests, contact, nights, cancellation_policy...)."""

    confirmation_number: str
    status: str
    hotel_code: str
    room_type_code: Optional[str]
    rate_plan_code: Optional[str]
    check_in: dt.date
    check_out: dt.date
    rooms: int
    total_amount: Decimal
    currency: str
    channel_name: str
    unmapped: tuple[str, ...]
    acknowledged: bool
    acknowledged_at: Optional[dt.datetime]
    hotel_confirmation_code: Optional[str]
    created_at: dt.datetime
    cancelled_at: Optional[dt.datetime]
    raw: dict = field(repr=False, compare=False)

    @classmethod
    def from_data(cls, data: dict) -> "HotelBooking":
        return cls(data["confirmation_number"], data["status"], data["hotel_code"],
                   data["room_type_code"], data["rate_plan_code"], _day(data["check_in"]),
                   _day(data["check_out"]), data["rooms"], _money(data["total_amount"]),
                   data["currency"], data["channel_name"], tuple(data["unmapped"]),
                   data["acknowledged"], _time(data["acknowledged_at"]),
                   data["hotel_confirmation_code"], _time(data["created_at"]),
                   _time(data["cancelled_at"]), data)


@dataclass(frozen=True)
class BookingResult:
    booking: Booking
    idempotent_replay: bool
    request_differs: bool = False


@dataclass(frozen=True)
class CancelResult:
    booking: Booking
    penalty_amount: Decimal
    currency: str
    idempotent_replay: bool


@dataclass(frozen=True)
class BatchAccepted:
    batch_id: str
    status: str
    item_count: int


@dataclass(frozen=True)
class RejectedItem:
    index: int
    code: str
    message: str


@dataclass(frozen=True)
class Batch:
    batch_id: str
    kind: str
    hotel_code: str
    status: str
    item_count: int
    applied_count: int
    rejected_count: int
    rejected: tuple[RejectedItem, ...]
    received_at: dt.datetime
    applied_at: Optional[dt.datetime]
    raw: dict = field(repr=False, compare=False)

    FINAL = ("applied", "partially_applied", "rejected", "failed")

    @property
    def final(self) -> bool:
        return self.status in self.FINAL

    @classmethod
    def from_data(cls, data: dict) -> "Batch":
        return cls(data["batch_id"], data["kind"], data["hotel_code"], data["status"],
                   data["item_count"], data["applied_count"], data["rejected_count"],
                   tuple(RejectedItem(r["index"], r["code"], r["message"])
                         for r in data["rejected"]),
                   _time(data["received_at"]), _time(data.get("applied_at")), data)


@dataclass(frozen=True)
class Change:
    """One entry of the change feed (contract 11.3): what to read again."""

    hotel_code: str
    room_type_code: Optional[str]
    rate_plan_code: Optional[str]
    from_date: Optional[dt.date]
    to_date: Optional[dt.date]
    kinds: tuple[str, ...]
    changed_at: dt.datetime

    @classmethod
    def from_data(cls, data: dict) -> "Change":
        return cls(data["hotel_code"], data.get("room_type_code"), data.get("rate_plan_code"),
                   _day(data.get("from_date")), _day(data.get("to_date")), tuple(data["kinds"]),
                   _time(data["changed_at"]))


@dataclass(frozen=True)
class Event:
    """One event of the partner's log (contract 12.2). `data` as the type defines it; receivers
    deduplicate by `event_id` (at least once)."""

    event_id: str
    type: str
    created_at: dt.datetime
    data: dict

    @classmethod
    def from_data(cls, data: dict) -> "Event":
        return cls(data["event_id"], data["type"], _time(data["created_at"]), data["data"])


@dataclass(frozen=True)
class ReservationVersion:
    version: int
    status: str
    received_at: dt.datetime
    ack_id: str


@dataclass(frozen=True)
class ReservationRecord:
    """GET /reservations/{reference} (contract 12.1): the reservation as the delivery answers
    show it (`reservation`, with `orphan`), its versions oldest first, its reconciliation."""

    partner_reference: str
    status: str
    orphan: bool
    versions: tuple[ReservationVersion, ...]
    reconciliation: tuple[dict, ...]
    reservation: dict = field(repr=False, compare=False)

    @classmethod
    def from_data(cls, data: dict) -> "ReservationRecord":
        reservation = data["reservation"]
        return cls(reservation["partner_reference"], reservation["status"],
                   reservation["orphan"],
                   tuple(ReservationVersion(v["version"], v["status"], _time(v["received_at"]),
                                            v["ack_id"]) for v in data["versions"]),
                   tuple(data["reconciliation"]), reservation)
