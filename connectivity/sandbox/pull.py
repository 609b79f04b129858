"""Forced answers of the pull side (contract 11.4), each built from the request's real hotel,
room type, plan and dates: the real use case runs first, so a request the service would refuse
(not mapped, not sellable, a bad quote token...) is refused the same way, and nothing is stored.

Each function takes what its operation's use case takes and answers as that use case would."""

from __future__ import annotations

import dataclasses
import datetime as dt
from decimal import Decimal
from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.availability.rates import rates
from connectivity.availability.search import search
from connectivity.bookings.create import find_booking_offer, judge_booking
from connectivity.bookings.manage import ensure_booking_currency, find_booking, penalty_now
from connectivity.bookings.offer import sold_out
from connectivity.bookings.quote import price_stay, quote_answer
from connectivity.bookings.quote_token import QuoteTokens
from connectivity.store.database import Database
from connectivity.web.errors import Conflict
from connectivity.pricing.money import minor_units, round_money
from connectivity.pricing.sellability import REASONS
from connectivity.pricing.spread import spread_total
from connectivity.web.fields import money_number
from connectivity.web.forced_outcomes import HEADER

PRICE_CHANGE = Decimal("1.10")  # price_changed: 10% higher


def _forced(what: str) -> str:
    return f"(forced by {HEADER}: {what})"


def search_sold_out(db: Database, caller: Caller, request: dict[str, Any],
                    now: dt.datetime) -> dict:
    answer = search(db, caller, request, now)
    return {**answer, "hotels": [{**h, "available": False, "lowest_total_amount": None}
                                 for h in answer["hotels"]]}


def rates_sold_out(db: Database, caller: Caller, request: dict[str, Any],
                   now: dt.datetime) -> dict:
    answer = rates(db, caller, request, now)

    def none_left(plan: dict) -> dict:
        reasons = set(plan["reasons"]) | {"sold_out"}
        return {**plan, "sellable": False, "reasons": [r for r in REASONS if r in reasons],
                "nights": [{**n, "available_rooms": 0} for n in plan["nights"]]}
    return {**answer, "room_types": [
        {**rt, "rate_plans": [none_left(p) for p in rt["rate_plans"]]}
        for rt in answer["room_types"]]}


def quote_sold_out(db: Database, caller: Caller, request: dict[str, Any],
                   now: dt.datetime) -> dict:
    price_stay(db, caller, request, now)
    raise _sold_out(request)


def quote_price_changed(db: Database, tokens: QuoteTokens, caller: Caller,
                        request: dict[str, Any], now: dt.datetime) -> dict:
    """The real quote at 10% more, its nights spread to add up to the new total; the token
    holds that total, so a booking with it books at the changed price."""
    offer, stay = price_stay(db, caller, request, now)
    total = round_money(stay.total * PRICE_CHANGE, stay.currency)
    amounts = spread_total([n.amount for n in stay.nights], total, stay.currency)
    changed = dataclasses.replace(stay, total=total, nights=tuple(
        dataclasses.replace(n, amount=a) for n, a in zip(stay.nights, amounts)))
    return quote_answer(tokens, caller, request, offer, changed, now)


def _judge_booking(db: Database, tokens: QuoteTokens, caller: Caller, request: dict[str, Any],
                   now: dt.datetime):
    with db.connection() as conn:
        return judge_booking(conn, tokens, caller, request, now)


def booking_sold_out(db: Database, tokens: QuoteTokens, caller: Caller,
                     request: dict[str, Any], now: dt.datetime):
    _judge_booking(db, tokens, caller, request, now)
    raise _sold_out(request)


def booking_price_changed(db: Database, tokens: QuoteTokens, caller: Caller,
                          request: dict[str, Any], now: dt.datetime):
    _judge_booking(db, tokens, caller, request, now)
    total = round_money(request["total_amount"] * PRICE_CHANGE, request["currency"])
    raise Conflict("price_mismatch",
                   f"the price of this stay is {total} {request['currency']}; nothing was "
                   f"booked {_forced('price_changed')}",
                   details={"total_amount": money_number(total), "currency": request["currency"]})


def booking_quote_expired(db: Database, tokens: QuoteTokens, caller: Caller,
                          request: dict[str, Any], now: dt.datetime):
    """Refused where the quote token is judged: after the hotel, room type and plan are found
    and a token sent is found genuine (422 `invalid_quote_token` otherwise), with or without
    one."""
    with db.connection() as conn:
        find_booking_offer(conn, caller, request, now)
    if request.get("quote_token"):
        tokens.open(request["quote_token"], now)
    raise Conflict("quote_expired", f"the quote expired at {now.isoformat()}; request a new "
                   f"quote {_forced('quote_expired')}", details={"expired_at": now.isoformat()})


def cancel_penalty_exceeds(db: Database, caller: Caller, reference: str,
                           request: dict[str, Any], now: dt.datetime):
    """The penalty cancelling would cost now; when the request expects at least that much, one
    minor unit above its expectation, so the answer agrees with its code. The booking is only
    read."""
    with db.connection() as conn:
        booking = find_booking(conn, caller, reference)
    ensure_booking_currency(booking, request)
    currency = booking["currency"]
    penalty = penalty_now(booking, now)
    expected = request.get("expected_penalty_amount")
    if expected is not None and penalty <= expected:
        penalty = expected + Decimal(1).scaleb(-minor_units(currency))
    raise Conflict("penalty_exceeds_expectation",
                   f"cancelling now costs {penalty} {currency}; the booking was not cancelled "
                   f"{_forced('penalty_exceeds_expectation')}",
                   details={"penalty_amount": money_number(penalty), "currency": currency})


def _sold_out(request: dict[str, Any]) -> Conflict:
    error = sold_out(request["rooms"])
    error.message = f"{error.message} {_forced('sold_out')}"
    return error
