"""POST /availability/rates: every night of every (room type, rate plan) of one property, priced
and judged by connectivity.pricing through the offer reader in `availability.offers`, which quote
and booking use too, so the three can never disagree about a stay.

Two paths give the same answers. The fast one (FAST_PATH, availability.rates_grid) judges every
offer x night at once with numpy, from the search read model where it holds the hotel
(read_model.SearchModel.rates_view: caught up as search is, so as fresh; no statement unless the
answer converts currencies), else from the day rows read as two compact values; a request
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
from connectivity.availability.offers import (converts, evaluate_offer, fx_table,
                                              read_catalogue, read_day_rows)
from connectivity.availability.read_model import RatesView, ReadModel
from connectivity.availability.stay import ensure_check_in_not_past, fx_multiplier
from connectivity.pricing.money import FxTable

# Combine each distinct pair of restriction rows once per request (offers.evaluate_offer's
# memo). False prices every night as quote and booking do: the reference the tests hold it to.
MEMO_RESTRICTIONS = True
# Price with availability.rates_grid where it holds the request exactly. False: the reference
# path for every request (the tests and bench.rates_digest compare the two).
FAST_PATH = True
# The fast path from the search read model where it holds the hotel. False: from the day tables
# always (the tests compare the two).
FROM_MODEL = True


def rates(db: Reads, caller: Caller, request: dict[str, Any], now: dt.datetime,
          model: ReadModel | None = None, fence: bytes | None = None) -> dict:
    """`fence`: the read fence's token as the request read it (None: unknown, so the model
    catches up first; store/read_fence.py)."""
    check_in, check_out = request["check_in"], request["check_out"]
    if FAST_PATH and FROM_MODEL and model is not None:
        view = model.rates_view(caller.partner_id, caller.environment, request["hotel_code"],
                                check_in, check_out, fence, request.get("room_type_codes"),
                                request.get("rate_plan_codes"))
        if view is not None:
            answer = _from_model(db, view, request, now)
            if answer is not None:
                return answer
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


def _from_model(db: Reads, view: RatesView, request: dict, now: dt.datetime) -> dict | None:
    """The answer from the read model's copy of the hotel (the catalogue as offers.sql reads
    it, the days as the day tables hold them), or None when the integers cannot hold it."""
    check_in, check_out = request["check_in"], request["check_out"]
    ensure_check_in_not_past(check_in, view.timezone, view.code, now)
    hotel = {"hotel_code": view.code, "currency": view.currency,
             "max_child_age": view.max_child_age}
    occupancy = _occupancy(request, hotel)
    offers = view.offers
    days = rates_grid.held_days(*view.days)
    if not rates_grid.holds(offers, days, occupancy):
        return None
    target = request.get("currency") or view.currency
    fx = FxTable()
    if converts(offers, target):
        with db.connection() as conn:
            fx = fx_table(conn, target)
    priced = rates_grid.evaluate(offers, days, stay_dates=stay_nights(check_in, check_out),
                                 occupancy=occupancy, nationality=request.get("nationality"),
                                 target=target, fx=fx)
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
