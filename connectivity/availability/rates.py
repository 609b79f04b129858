"""POST /availability/rates: every night of every (room type, rate plan) of one property, priced
and judged by connectivity.pricing through the offer reader in `availability.offers`, which quote
and booking use too, so the three can never disagree about a stay."""

from __future__ import annotations

import datetime as dt
from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.store.replica import Reads
from connectivity.web.errors import ValidationFailed
from connectivity.pricing import NightPrice, OccupancyError, normalise_occupancy, quote_in_currency
from connectivity.pricing.stay_nights import stay_nights
from connectivity.availability.offers import evaluate_offer, read_offers
from connectivity.availability.stay import fx_multiplier

# Combine each distinct pair of restriction rows once per request (offers.evaluate_offer's
# memo). False prices every night as quote and booking do: the reference the tests hold it to.
MEMO_RESTRICTIONS = True


def rates(db: Reads, caller: Caller, request: dict[str, Any], now: dt.datetime) -> dict:
    check_in, check_out = request["check_in"], request["check_out"]
    with db.connection() as conn:
        snapshot = read_offers(conn, caller, request, now)
    hotel, offers = snapshot["hotel"], snapshot["offers"]
    try:
        occupancy = normalise_occupancy(request["occupancy"], request["rooms"],
                                        hotel["max_child_age"])
    except OccupancyError as exc:  # the schema checks the same; this keeps a 500 impossible
        raise ValidationFailed(exc.fields) from None
    target = request.get("currency") or hotel["currency"]
    stay_dates = stay_nights(check_in, check_out)
    room_types: dict[str, list[dict]] = {}
    memo = {} if MEMO_RESTRICTIONS else None
    for offer in offers:
        plans = room_types.setdefault(offer["room_type_code"], [])
        quote = evaluate_offer(offer, snapshot, request, occupancy, stay_dates, memo)
        quote = quote_in_currency(quote, fx_multiplier(snapshot["fx"], quote.currency, target),
                                  target)
        plans.append({
            "rate_plan_code": offer["rate_plan_code"], "board_type": offer["board_type"],
            "sellable": quote.sellable, "reasons": list(quote.reasons),
            "total_amount": quote.total, "nights": [_night(n) for n in quote.nights],
            "cancellation_policy": offer["cancellation_policy"],
        })
    return {"hotel_code": hotel["hotel_code"], "check_in": check_in, "check_out": check_out,
            "currency": target,
            "room_types": [{"room_type_code": code, "rate_plans": plans}
                           for code, plans in room_types.items()]}


def _night(night: NightPrice) -> dict:
    # Not dataclasses.asdict: it deep-copies every Decimal, a large share of this endpoint's time.
    # A plain dataclass's __dict__ holds its fields in declaration order: copied whole.
    return night.__dict__.copy()
