"""Rates combines each distinct pair of restriction rows once per request
(availability.rates.MEMO_RESTRICTIONS); the reference combines every night's, as quote and
booking do. On random ARI (restrictions at both levels, missing rates and inventory) and random
requests (rooms, occupancies, child ages, nationalities, currencies through FX), both answer
the same, to the byte."""

from __future__ import annotations

import json
import random

import pytest

from connectivity.availability import rates as rates_module
from connectivity.operator.catalog import load_catalog, parse_catalog

from tests.availability.conftest import API
from tests.availability.test_search_matches_rates import (CATALOG, HOTEL_CODES, random_ari,
                                                          random_request)


RESTRICTIONS = ("closed", "min_stay", "max_stay", "closed_to_arrival", "closed_to_departure")


def answer(client, headers, monkeypatch, memo: bool, body: dict) -> dict:
    # The reference path both ways: the fast path (test_rates_grid.py) never reads the memo.
    monkeypatch.setattr(rates_module, "FAST_PATH", False)
    monkeypatch.setattr(rates_module, "MEMO_RESTRICTIONS", memo)
    response = client.post(f"{API}/availability/rates", json=body, headers=headers)
    assert response.status_code == 200, (body, response.json)
    return response.json["data"]


def first_difference(body: dict, fast: dict, reference: dict) -> str:
    """Where the two answers part, as a line a reader can act on."""
    plans = {(rt["room_type_code"], rp["rate_plan_code"]): rp
             for rt in reference["room_types"] for rp in rt["rate_plans"]}
    for rt in fast["room_types"]:
        for rp in rt["rate_plans"]:
            ref = plans.get((rt["room_type_code"], rp["rate_plan_code"]))
            if ref is None or rp == ref:
                continue
            for name in ("sellable", "reasons", "total_amount"):
                if rp[name] != ref[name]:
                    return (f"{body}: {rt['room_type_code']}/{rp['rate_plan_code']} {name} "
                            f"{rp[name]!r}, reference {ref[name]!r}")
            for mine, theirs in zip(rp["nights"], ref["nights"]):
                if mine != theirs:
                    return (f"{body}: {rt['room_type_code']}/{rp['rate_plan_code']} night "
                            f"{mine}, reference {theirs}")
    return f"{body}: the answers differ outside the plans: {fast} / {reference}"


def restricted_nights(data: dict) -> int:
    return sum(any(night[r] for r in RESTRICTIONS) for rt in data["room_types"]
               for rp in rt["rate_plans"] for night in rp["nights"])


@pytest.mark.parametrize("seed", range(3))
def test_memo_answers_as_the_reference(client, pull, db, monkeypatch, seed):
    db.run(load_catalog, parse_catalog(json.dumps(CATALOG)))
    rng = random.Random(seed)
    random_ari(db, rng)
    differing, restricted = [], 0
    for _ in range(20):
        body = {"hotel_code": rng.choice(HOTEL_CODES), **random_request(rng)}
        fast = answer(client, pull, monkeypatch, True, body)
        reference = answer(client, pull, monkeypatch, False, body)
        if fast != reference:
            differing.append(first_difference(body, fast, reference))
        restricted += restricted_nights(reference)
    assert not differing, "\n".join(differing)
    # the random nights must carry restrictions, or the memo is not exercised
    assert restricted >= 10, restricted
