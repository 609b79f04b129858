"""POST /availability/rates: every night of every (room type, rate plan) of one property, priced
and judged by connectivity.pricing through the offer reader in `availability.offers`, which quote
and booking use too, so the three can never disagree about a stay.

Two paths give the same answers. The fast one (FAST_PATH, availability.rates_grid) reads the
day rows as two compact values and judges every offer x night at once with numpy; a request
whose values it cannot hold exactly is answered by the reference path, which reads the rows
(in the same transaction, so the same snapshot) and prices offer by offer through
offers.evaluate_offer as quote and booking do."""

from __future__ import annotations

import datetime as dt
from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.store.replica import Reads
from connectivity.web.errors import ValidationFailed
from connectivity.pricing import NightPrice, OccupancyError, normalise_occupancy, quote_in_currency
from connectivity.pricing.stay_nights import stay_nights
from connectivity.availability import rates_grid
from connectivity.availability.offers import evaluate_offer, read_catalogue, read_day_rows
from connectivity.availability.stay import fx_multiplier

# Combine each distinct pair of restriction rows once per request (offers.evaluate_offer's
# memo). False prices every night as quote and booking do: the reference the tests hold it to.
MEMO_RESTRICTIONS = True
# Price with availability.rates_grid where it holds the request exactly. False: the reference
# path for every request (the tests and bench.rates_digest compare the two).
FAST_PATH = True


def rates(db: Reads, caller: Caller, request: dict[str, Any], now: dt.datetime) -> dict:
    check_in, check_out = request["check_in"], request["check_out"]
    days = None
    with db.connection() as conn:
        snapshot = read_catalogue(conn, caller, request, now, shared_policies=FAST_PATH)
        hotel, offers = snapshot["hotel"], snapshot["offers"]
        occupancy = _occupancy(request, hotel)
        target = request.get("currency") or hotel["currency"]
        stay_dates = stay_nights(check_in, check_out)
        if FAST_PATH:
            days = rates_grid.read_rate_days(conn, hotel["property_id"], offers, check_in,
                                             check_out, occupancy)
            if days is not None and not rates_grid.holds(offers, days, occupancy):
                days = None
        if days is None:
            snapshot.update(read_day_rows(conn, snapshot, request))
    if days is not None:
        priced = rates_grid.evaluate(offers, days, stay_dates=stay_dates, occupancy=occupancy,
                                     nationality=request.get("nationality"), target=target,
                                     fx=snapshot["fx"])
    else:
        priced = reference_prices(snapshot, request, occupancy, stay_dates, target)
    return _answer(hotel, request, target, offers, priced)


def reference_prices(snapshot: dict, request: dict, occupancy, stay_dates,
                     target: str) -> list[dict]:
    """Per offer of the snapshot (offers.read_offers'), {sellable, reasons, total_amount,
    nights} in `target`, by offers.evaluate_offer and pricing.quote_in_currency: the
    reference rates_grid.evaluate is held to."""
    memo = {} if MEMO_RESTRICTIONS else None
    priced = []
    for offer in snapshot["offers"]:
        quote = evaluate_offer(offer, snapshot, request, occupancy, stay_dates, memo)
        quote = quote_in_currency(quote, fx_multiplier(snapshot["fx"], quote.currency, target),
                                  target)
        priced.append({"sellable": quote.sellable, "reasons": list(quote.reasons),
                       "total_amount": quote.total,
                       "nights": [_night(n) for n in quote.nights]})
    return priced


def _answer(hotel: dict, request: dict, target: str, offers: list[dict],
            priced: list[dict]) -> dict:
    """The answer, its offers grouped by room type in the catalogue's order."""
    room_types: dict[str, list[dict]] = {}
    for offer, quote in zip(offers, priced):
        room_types.setdefault(offer["room_type_code"], []).append({
            "rate_plan_code": offer["rate_plan_code"], "board_type": offer["board_type"],
            "sellable": quote["sellable"], "reasons": quote["reasons"],
            "total_amount": quote["total_amount"], "nights": quote["nights"],
            "cancellation_policy": offer["cancellation_policy"]})
    return {"hotel_code": hotel["hotel_code"], "check_in": request["check_in"],
            "check_out": request["check_out"], "currency": target,
            "room_types": [{"room_type_code": code, "rate_plans": plans}
                           for code, plans in room_types.items()]}


def _occupancy(request: dict, hotel: dict):
    try:
        return normalise_occupancy(request["occupancy"], request["rooms"],
                                   hotel["max_child_age"])
    except OccupancyError as exc:  # the schema checks the same; this keeps a 500 impossible
        raise ValidationFailed(exc.fields) from None


def _night(night: NightPrice) -> dict:
    # Not dataclasses.asdict: it deep-copies every Decimal, a large share of this endpoint's time.
    # A plain dataclass's __dict__ holds its fields in declaration order: copied whole.
    return night.__dict__.copy()
