"""POST /bookings: one transaction that claims the partner's reference, prices and judges the
stay, takes the inventory of every night, and stores the booking, or leaves nothing behind.

Order of the outcomes (contract section 10): validation (the schema, 422), idempotent replay
(200), not mapped (404), quote token (422 / 409), sellability (409 `not_sellable`), price (409
`price_mismatch`), inventory (409 `sold_out`). Every refusal after the claim raises, so the
transaction rolls back the claim with everything else.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from psycopg.types.json import Jsonb

from connectivity.store.database import announces
from connectivity.store.read_fence import READS_CHANGED, name_changed
from connectivity.auth.authenticate import Caller
from connectivity.store.database import Database
from connectivity.web.errors import Conflict
from connectivity.mapping.hotel_code import find_hotel
from connectivity.pricing import occupancy_from_guests
from connectivity.pricing.spread import spread_total
from connectivity.store.queries import queries
from connectivity.web.fields import money_number
from connectivity.bookings.booking_events import announce
from connectivity.bookings.confirmation import ConfirmationKey, Numbering
from connectivity.bookings.manage import find_booking
from connectivity.bookings.offer import find_offer, judge, policy_fx_rate, sold_out
from connectivity.bookings.quote_token import QuoteTokens, StayBinding
from connectivity.bookings.records import booking_view, request_fingerprint, stored_nights

def create_booking(db: Database, tokens: QuoteTokens, numbers: ConfirmationKey, caller: Caller,
                   request: dict[str, Any], now: dt.datetime) -> tuple[dict, int]:
    """(payload, status): 201 for a new booking, 200 for a replay of its reference."""
    numbering = numbers.numbering()  # read once per process, before the booking's transaction
    return db.run(_create, tokens, numbering, caller, request, request_fingerprint(request),
                  now)


def lead_nationality(guests: list[dict]) -> str | None:
    """The lead guest's (`is_lead`), else the first adult of room 1's (contract section 10)."""
    lead = next((g for g in guests if g.get("is_lead")), None) or next(
        (g for g in guests if g["room_number"] == 1 and g["is_adult"]), None)
    return lead.get("nationality") if lead else None


def find_booking_offer(conn, caller: Caller, request: dict, now: dt.datetime):
    """The booking's offer, its rooms from `guests`; 404 when not mapped and active."""
    return find_offer(conn, caller, request, now, lambda max_child_age: occupancy_from_guests(
        request["guests"], request["rooms"], max_child_age))


def judge_booking(conn, tokens: QuoteTokens, caller: Caller, request: dict, now: dt.datetime):
    """The checks of a booking that store nothing, in the contract's order up to the price:
    not mapped (404), quote token (422 / 409), sellability (409). Returns (offer, the opened
    quote token or None, the nationality judged, the stay priced now)."""
    offer = find_booking_offer(conn, caller, request, now)
    quoted = None
    nationality = lead_nationality(request["guests"])
    if request.get("quote_token"):
        quoted = tokens.open(request["quote_token"], now)
        tokens.ensure_for(quoted, StayBinding(
            caller.partner_id, caller.environment, request["hotel_code"],
            request["room_type_code"], request["rate_plan_code"], request["check_in"],
            request["check_out"], request["rooms"], offer.occupancy))
        nationality = quoted.nationality
    return offer, quoted, nationality, judge(offer, request, nationality)


@announces(READS_CHANGED)  # search and rates reflect it once answered (13.1)
def _create(conn, tokens: QuoteTokens, numbering: Numbering, caller: Caller, request: dict,
            fingerprint: bytes, now: dt.datetime) -> tuple[dict, int]:
    q = queries().bookings
    scope = {"partner_id": caller.partner_id, "environment": caller.environment,
             "partner_reference": request["partner_reference"]}
    # The property the claim says the booking lives with: the caller's mapping of the hotel
    # code, active or not (None when unmapped: the booking then answers 404 after the claim,
    # and rolls the claim back).
    hotel = find_hotel(conn, caller, request["hotel_code"])
    claim = q.claim_reference(conn, **scope,
                              property_id=hotel["property_id"] if hotel else None)
    if claim is None:
        # The reference's first transaction committed while this one waited on the claim.
        existing = find_booking(conn, caller, request["partner_reference"])
        return {"booking": booking_view(existing), "idempotent_replay": True,
                "request_differs": bytes(existing["request_hash"]) != fingerprint}, 200

    offer, quoted, nationality, stay = judge_booking(conn, tokens, caller, request, now)
    total, currency = (quoted.total, quoted.currency) if quoted else (stay.total, stay.currency)
    if request["total_amount"] != total or request["currency"] != currency:
        raise Conflict("price_mismatch",
                       f"the {'quoted' if quoted else 'current'} price of this stay is "
                       f"{total} {currency}; nothing was booked",
                       details={"total_amount": money_number(total), "currency": currency})
    amounts = tuple(n.amount for n in stay.nights)
    if quoted:
        amounts = spread_total(amounts, total, currency)

    taken = q.change_inventory(conn, property_id=offer.hotel["property_id"],
                               room_type_id=offer.offer["room_type_id"],
                               check_in=request["check_in"], check_out=request["check_out"],
                               change=-request["rooms"])
    if len(taken) != len(offer.stay_dates):
        raise sold_out(request["rooms"])
    name_changed(offer.hotel["property_id"])  # its inventory, all this booking changes

    row = q.insert_booking(
        conn, id=claim["booking_id"], **scope,
        confirmation_number=numbering.confirmation_number(claim["booking_id"]),
        request_hash=fingerprint, mapping_id=offer.hotel["mapping_id"],
        property_id=offer.hotel["property_id"], room_type_id=offer.offer["room_type_id"],
        rate_plan_id=offer.offer["rate_plan_id"], hotel_code=offer.hotel["hotel_code"],
        room_type_code=offer.offer["room_type_code"],
        rate_plan_code=offer.offer["rate_plan_code"], check_in=request["check_in"],
        check_out=request["check_out"], rooms=request["rooms"], total_amount=total,
        currency=currency, nights=Jsonb(stored_nights(offer.stay_dates, amounts)),
        cancellation_policy=Jsonb(offer.offer["cancellation_policy"]),
        policy_currency=offer.offer["currency"], policy_fx_rate=policy_fx_rate(offer),
        nationality=nationality, guests=Jsonb(request["guests"]),
        contact=Jsonb(request["contact"]), special_requests=request.get("special_requests"),
        arrival_time=request.get("arrival_time"))
    announce(conn, row, "confirmed")
    return {"booking": booking_view(row), "idempotent_replay": False,
            "request_differs": False}, 201
