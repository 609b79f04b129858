"""One (hotel, room type, rate plan) priced for an exact stay: what quote and booking share.

Both read through `availability.offers.read_offers` and judge through `evaluate_offer`, so a quote
or a booking prices a stay exactly as POST /availability/rates shows it. The steps are separate
functions because the contract interleaves them with the booking's own checks (section 10):
not mapped, quote token, sellability, price, inventory.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable

from connectivity.auth.authenticate import Caller
from connectivity.availability.offers import evaluate_offer, read_offers
from connectivity.availability.stay import fx_multiplier
from connectivity.web.errors import Conflict, NotFound, ValidationFailed
from connectivity.pricing import OccupancyError, RoomOccupancy, StayQuote, quote_in_currency
from connectivity.pricing.stay_nights import stay_nights

# Inventory is judged by the conditional decrement (booking) or after the price (quote), not
# here: the contract puts `sold_out` after sellability and price.
INVENTORY_REASON = "sold_out"


@dataclass
class Offer:
    hotel: dict
    offer: dict
    snapshot: dict
    occupancy: tuple[RoomOccupancy, ...]
    stay_dates: list[dt.date]
    currency: str  # the answer's: the request's, else the hotel's


def find_offer(conn, caller: Caller, request: dict[str, Any], now: dt.datetime,
               occupancy_of: Callable[[int], tuple[RoomOccupancy, ...]]) -> Offer:
    """The caller's mapped and active offer, or 404; `occupancy_of(max_child_age)` gives the
    rooms (from `occupancy` for a quote, from `guests` for a booking)."""
    snapshot = read_offers(conn, caller, {**request,
                                          "room_type_codes": [request["room_type_code"]],
                                          "rate_plan_codes": [request["rate_plan_code"]]}, now)
    if not snapshot["offers"]:
        raise NotFound(f"room type {request['room_type_code']!r} with rate plan "
                       f"{request['rate_plan_code']!r} is not mapped for hotel "
                       f"{request['hotel_code']!r}")
    hotel = snapshot["hotel"]
    try:
        occupancy = occupancy_of(hotel["max_child_age"])
    except OccupancyError as exc:  # the schemas check the same; this keeps a 500 impossible
        raise ValidationFailed(exc.fields) from None
    check_in, check_out = request["check_in"], request["check_out"]
    dates = stay_nights(check_in, check_out)
    return Offer(hotel, snapshot["offers"][0], snapshot, occupancy, dates,
                 request.get("currency") or hotel["currency"])


def judge(offer: Offer, request: dict[str, Any], nationality: str | None) -> StayQuote:
    """The stay priced in the answer's currency; 409 `not_sellable` with the reasons, inventory
    aside. 422 `currency_not_supported` when no FX rate converts the plan's prices."""
    stay = {**request, "nationality": nationality}
    quote = evaluate_offer(offer.offer, offer.snapshot, stay, offer.occupancy, offer.stay_dates)
    reasons = [r for r in quote.reasons if r != INVENTORY_REASON]
    if reasons:
        raise Conflict("not_sellable", "this stay cannot be sold: " + ", ".join(reasons),
                       details={"reasons": reasons})
    return quote_in_currency(quote, policy_fx_rate(offer), offer.currency)


def policy_fx_rate(offer: Offer) -> Decimal:
    """Multiplier from the rate plan's currency to the answer's: prices and an `amount`
    penalty convert alike (contract section 10)."""
    return fx_multiplier(offer.snapshot["fx"], offer.offer["currency"], offer.currency)


def ensure_inventory(quote: StayQuote, rooms: int) -> None:
    if INVENTORY_REASON in quote.reasons:
        raise sold_out(rooms)


def sold_out(rooms: int) -> Conflict:
    return Conflict("sold_out", f"fewer than {rooms} room(s) left on some night of the stay")
