"""The offer reader and judge that rates, quote and booking share: `read_offers` reads everything
pricing a request's offers needs in one transaction, `evaluate_offer` judges and prices one
(room type, rate plan) through connectivity.pricing. Because all three start here, they can
never disagree about a stay."""

from __future__ import annotations

import datetime as dt
import json

from psycopg.rows import dict_row
from psycopg.types.string import TextLoader

from connectivity.auth.authenticate import Caller
from connectivity.mapping.hotel_code import selling_hotel
from connectivity.pricing import (NightInput, NightRates, NightRestrictions, RatePlanRules, effective,
                       evaluate_stay)
from connectivity.pricing.money import FxTable
from connectivity.store.queries import queries
from connectivity.availability.stay import ensure_check_in_not_past

RESTRICTION_FIELDS = ("closed", "min_stay", "max_stay", "closed_to_arrival",
                      "closed_to_departure")
RATE_FIELDS = ("rate", "single_rate", "extra_adult_rate", "extra_child_rate")


def read_offers(conn, caller: Caller, request: dict, now: dt.datetime) -> dict:
    """Everything pricing the request's offers needs, read in the caller's transaction so it is
    one consistent moment (rates, quote and booking all start here)."""
    catalogue = read_catalogue(conn, caller, request, now)
    return {**catalogue, **read_day_rows(conn, catalogue, request)}


def read_catalogue(conn, caller: Caller, request: dict, now: dt.datetime, *,
                   shared_policies: bool = False) -> dict:
    """The selling hotel (404 when the caller has no selling mapping of it), the offers it maps
    (narrowed to the request's codes) and the FX rates the answer's currency needs: what
    `read_offers` reads besides the day rows (rates' fast path reads those its own way).

    `shared_policies`: the offers of one rate plan share one cancellation policy dict, parsed
    once (rates: 30 offers carry 3 policies, and parsing each offer's copy of the JSON cost a
    sixth of its fast path). Only for a caller that reads the offers and never changes them."""
    q = queries()
    hotel = selling_hotel(conn, caller, request["hotel_code"])
    ensure_check_in_not_past(request["check_in"], hotel["timezone"], hotel["hotel_code"],
                             now)
    params = {"mapping_id": hotel["mapping_id"],
              "room_type_codes": request.get("room_type_codes"),
              "rate_plan_codes": request.get("rate_plan_codes")}
    offers = (_offers_sharing_policies(conn, params) if shared_policies
              else q.availability.offers(conn, **params))
    target = request.get("currency") or hotel["currency"]
    return {"hotel": hotel, "offers": offers,
            "fx": fx_table(conn, target) if converts(offers, target) else FxTable()}


def converts(offers: list[dict], target: str) -> bool:
    """Whether pricing the offers in `target` needs FX rates (then read: they are never
    cached)."""
    return any(o["currency"] != target for o in offers)


def fx_table(conn, target: str) -> FxTable:
    """The FX rates into and out of `target`."""
    return FxTable.from_rows((r["base"], r["quote"], r["rate"])
                             for r in queries().availability.fx_rates_of(conn, currency=target))


def _offers_sharing_policies(conn, params: dict) -> list[dict]:
    """q.availability.offers' rows, the policy JSON read as text and parsed once per text."""
    cursor = conn.cursor(row_factory=dict_row)
    cursor.adapters.register_loader("jsonb", TextLoader)
    offers = cursor.execute(queries().availability.offers.sql, params).fetchall()
    parsed: dict[str, dict] = {}
    for offer in offers:
        text = offer["cancellation_policy"]
        policy = parsed.get(text)
        if policy is None:
            policy = parsed[text] = json.loads(text)
        offer["cancellation_policy"] = policy
    return offers


def read_day_rows(conn, catalogue: dict, request: dict) -> dict:
    """The offers' day rows from check-in to check-out (which carries CTD), by key."""
    q = queries()
    offers = catalogue["offers"]
    if not offers:
        return {"room_days": {}, "plan_days": {}}
    window = {"property_id": catalogue["hotel"]["property_id"],
              "first_date": request["check_in"],
              "last_date": request["check_out"],  # the check-out date carries CTD
              "room_type_ids": sorted({o["room_type_id"] for o in offers})}
    room_days = {(r["room_type_id"], r["date"]): r
                 for r in q.availability.room_type_days(conn, **window)}
    plan_days = {(r["room_type_id"], r["rate_plan_id"], r["date"]): r
                 for r in q.availability.rate_plan_days(
                     conn, rate_plan_ids=sorted({o["rate_plan_id"] for o in offers}), **window)}
    return {"room_days": room_days, "plan_days": plan_days}


def _restrictions(row: dict | None) -> NightRestrictions | None:
    return None if row is None else NightRestrictions(**{f: row[f] for f in RESTRICTION_FIELDS})


def _level(row: dict | None) -> tuple | None:
    return None if row is None else tuple(row[f] for f in RESTRICTION_FIELDS)


def _effective_of(room_day: dict | None, plan_day: dict | None,
                  memo: dict | None) -> NightRestrictions:
    """`effective` of the two levels' rows. With a memo (one request's: rates prices every
    offer of a hotel, whose nights repeat a few combinations of restrictions), each distinct
    combination is combined once; `effective` is a pure function of the values, so the answer
    is the same."""
    if memo is None:
        return effective(_restrictions(room_day), _restrictions(plan_day))
    key = (_level(room_day), _level(plan_day))
    found = memo.get(key)
    if found is None:
        found = memo[key] = effective(_restrictions(room_day), _restrictions(plan_day))
    return found


def evaluate_offer(offer: dict, snapshot: dict, request: dict, occupancy, stay_dates,
                   memo: dict | None = None):
    """One (room type, rate plan) judged and priced in the plan's currency by evaluate_stay.
    `memo`: a dict kept for one snapshot's offers (see _effective_of), or None."""
    room_days, plan_days = snapshot["room_days"], snapshot["plan_days"]
    rt, rp = offer["room_type_id"], offer["rate_plan_id"]

    def night(date: dt.date) -> NightInput:
        room_day = room_days.get((rt, date))
        plan_day = plan_days.get((rt, rp, date))
        return NightInput(
            date=date,
            available_rooms=None if room_day is None else room_day["available"],
            restrictions=_effective_of(room_day, plan_day, memo),
            rates=None if plan_day is None else NightRates(**{f: plan_day[f]
                                                              for f in RATE_FIELDS}))

    check_out = request["check_out"]
    return evaluate_stay(
        check_in=request["check_in"], check_out=check_out, rooms=request["rooms"],
        nights=[night(d) for d in stay_dates], occupancy=occupancy,
        plan=RatePlanRules.build(**{k: offer[k] for k in (
            "base_adults", "max_adults", "max_children", "max_occupancy",
            "allowed_nationalities", "blocked_nationalities")}),
        room_type_max_occupancy=offer["room_type_max_occupancy"],
        nationality=request.get("nationality"), currency=offer["currency"],
        departure_restrictions=_effective_of(room_days.get((rt, check_out)),
                                             plan_days.get((rt, rp, check_out)), memo))
