"""POST /bookings/quote: an exact stay priced as POST /bookings would price it, with a signed
token that lets the booking keep that price for QUOTE_TTL_SECONDS."""

from __future__ import annotations

import datetime as dt
from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.store.database import Database
from connectivity.pricing import StayQuote, normalise_occupancy
from connectivity.bookings.offer import Offer, ensure_inventory, find_offer, judge
from connectivity.bookings.quote_token import QuoteTokens, StayBinding


def quote(db: Database, tokens: QuoteTokens, caller: Caller, request: dict[str, Any],
          now: dt.datetime) -> dict:
    offer, stay = price_stay(db, caller, request, now)
    ensure_inventory(stay, request["rooms"])
    return quote_answer(tokens, caller, request, offer, stay, now)


def price_stay(db: Database, caller: Caller, request: dict[str, Any],
               now: dt.datetime) -> tuple[Offer, StayQuote]:
    """The stay priced and judged (404, 409 `not_sellable`, 422), inventory aside."""
    # Reads only: one transaction for one consistent moment, no retry needed.
    with db.connection() as conn:
        offer = find_offer(conn, caller, request, now, lambda max_child_age: normalise_occupancy(
            request["occupancy"], request["rooms"], max_child_age))
    return offer, judge(offer, request, request.get("nationality"))


def quote_answer(tokens: QuoteTokens, caller: Caller, request: dict[str, Any], offer: Offer,
                 stay: StayQuote, now: dt.datetime) -> dict:
    """The answer, with a token for `stay`'s total and currency."""
    binding = StayBinding(caller.partner_id, caller.environment, request["hotel_code"],
                          request["room_type_code"], request["rate_plan_code"],
                          request["check_in"], request["check_out"], request["rooms"],
                          offer.occupancy)
    token, expires_at = tokens.issue(binding, stay.total, stay.currency,
                                     request.get("nationality"), now)
    return {"quote_token": token, "expires_at": expires_at,
            **{k: request[k] for k in ("hotel_code", "room_type_code", "rate_plan_code",
                                       "check_in", "check_out", "rooms")},
            "total_amount": stay.total, "currency": stay.currency,
            "nights": [vars(n) for n in stay.nights],
            "cancellation_policy": offer.offer["cancellation_policy"]}
