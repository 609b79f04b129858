"""POST /availability/search: which of the requested hotels have anything sellable, and from
what total. The read model (read_model/) answers the hotels it holds; one statement
(sql/queries/availability/search.sql, the reference) answers the rest, or all of them when the
model is off."""

from __future__ import annotations

import datetime as dt
from typing import Any

from connectivity.auth.authenticate import Caller
from connectivity.store.replica import Reads
from connectivity.web.errors import CurrencyNotSupported, ValidationFailed
from connectivity.pricing.money import round_money
from connectivity.store.queries import queries
from connectivity.availability.read_model import ReadModel
from connectivity.availability.stay import distinct_rooms, minor_units_table, property_today


def search(db: Reads, caller: Caller, request: dict[str, Any], now: dt.datetime,
           model: ReadModel | None = None, fence: bytes | None = None) -> dict:
    """`fence`: the read fence's token as the request read it (None: unknown, so the model
    catches up first; store/read_fence.py)."""
    # A code sent twice is answered once, in the order first sent.
    codes = list(dict.fromkeys(request["hotel_codes"]))

    def reference(some: list[str]) -> list[dict]:
        with db.connection() as conn:
            rows = queries().availability.search_hotels(conn, **search_parameters(
                caller.partner_id, caller.environment, some, request, now))
        for row in rows:
            # numeric from SQL keeps the exponent of its sum; the currency's, as the model's
            # amounts (grid.to_money) already have it.
            if row["lowest_total_amount"] is not None:
                row["lowest_total_amount"] = round_money(row["lowest_total_amount"],
                                                         row["currency"])
        return rows
    rows = (reference(codes) if model is None else
            model.search_rows(caller.partner_id, caller.environment, codes, request, now,
                              reference, fence))
    found = {row["hotel_code"]: row for row in rows}
    if model is None:  # the statement's rows in the codes' order, as the model gives them
        rows = [found[code] for code in codes if code in found]
    # (The codes are distinct, and every row answers one: all answered when as many.)
    unanswered = [code for code in codes if code not in found] if len(found) < len(codes) else []
    paused = set()
    if unanswered:
        with db.connection() as conn:
            paused = {row["hotel_code"] for row in queries().availability.paused_hotel_codes(
                conn, partner_id=caller.partner_id, environment=caller.environment,
                hotel_codes=unanswered)}
    _refuse_what_cannot_be_answered(request, found, now)
    return {
        "hotels": [_hotel(row) for row in rows],
        # Every code not mapped and active, paused ones included (contract 13.1); the paused
        # ones also named apart.
        "unknown_hotel_codes": unanswered,
        "paused_hotel_codes": [code for code in unanswered if code in paused],
    }


def search_parameters(partner_id: int, environment: str, codes: list[str], request: dict,
                      now) -> dict:
    """The statement's parameters (also what `make bench` runs as the database floor)."""
    return {"partner_id": partner_id, "environment": environment, "hotel_codes": codes,
            "check_in": request["check_in"], "check_out": request["check_out"],
            "rooms": request["rooms"],
            "occupancy": distinct_rooms(request["occupancy"], request["rooms"]),
            "nationality": request.get("nationality"), "currency": request.get("currency"),
            "minor_units": minor_units_table(), "now": now}


def _refuse_what_cannot_be_answered(request: dict, found: dict[str, dict], now) -> None:
    if not any(row["check_in_past"] or row["currency_unsupported"] for row in found.values()):
        return  # (one pass over the rows, in the common case)
    past = sorted(code for code, row in found.items() if row["check_in_past"])
    if past:
        raise ValidationFailed({"check_in": [
            f"must be today or later at every hotel searched; it is already "
            f"{property_today_of(found[past[0]], now)} at {', '.join(past[:5])}"]})
    unconvertible = sorted(code for code, row in found.items() if row["currency_unsupported"])
    if unconvertible:
        currency = request.get("currency")
        raise CurrencyNotSupported(
            f"prices of {', '.join(unconvertible[:5])} cannot be given in {currency}: "
            "no exchange rate is configured", details={"currency": currency,
                                                       "hotel_codes": unconvertible})


def property_today_of(row: dict, now) -> str:
    return property_today(row["timezone"], now).isoformat()


def _hotel(row: dict) -> dict:
    lowest = row["lowest_total_amount"]
    return {
        "hotel_code": row["hotel_code"],
        "available": lowest is not None,
        "lowest_total_amount": lowest,
        "currency": row["currency"],
    }
