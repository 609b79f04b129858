"""POST /bookings/quote: an exact stay priced as POST /bookings would price it, with a signed
token that lets the booking keep that price for QUOTE_TTL_SECONDS."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ..auth.authenticate import Caller
from ..db import Database
from ..pricing import normalise_occupancy
from .offer import ensure_inventory, find_offer, judge
from .quote_token import QuoteTokens, StayBinding


def quote(db: Database, tokens: QuoteTokens, caller: Caller, request: dict[str, Any],
          now: dt.datetime) -> dict:
    # Reads only: one transaction for one consistent moment, no retry needed.
    with db.connection() as conn:
        offer = find_offer(conn, caller, request, now, lambda max_child_age: normalise_occupancy(
            request["occupancy"], request["rooms"], max_child_age))
    stay = judge(offer, request, request.get("nationality"))
    ensure_inventory(stay, request["rooms"])
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
