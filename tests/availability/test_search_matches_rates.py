"""Search computes sellability and the lowest total in SQL; rates computes them per offer in
Python with connectivity.pricing. Both must give one answer: on random ARI and random requests,
a hotel is available in search exactly when some offer of rates is sellable, and the lowest
total is the cheapest sellable total of rates, to the minor unit, in every currency."""

from __future__ import annotations

import json
import random
from decimal import Decimal

import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog

from tests.support.ari_days import set_plan_days, set_room_days
from tests.availability.conftest import API, day

POLICY = {"non_refundable": False, "tiers": []}


def plan(code, currency, room_types, **rules):
    return {"code": code, "name": code, "board_type": "RO", "currency": currency,
            "room_types": room_types, "base_adults": rules.get("base_adults", 2),
            "max_adults": rules.get("max_adults", 3), "max_children": rules.get("max_children", 2),
            "max_occupancy": rules.get("max_occupancy", 4),
            "allowed_nationalities": rules.get("allowed", []),
            "blocked_nationalities": rules.get("blocked", []), "cancellation_policy": POLICY}


CATALOG = {
    "properties": [
        {"code": "EUH", "name": "Euro hotel", "environment": "sandbox", "country": "PT",
         "timezone": "Europe/Lisbon", "currency": "EUR", "max_child_age": 11,
         "room_types": [{"code": "R1", "name": "Big", "max_occupancy": 4},
                        {"code": "R2", "name": "Small", "max_occupancy": 2}],
         "rate_plans": [plan("P1", "EUR", ["R1", "R2"]),
                        # priced in GBP: shown in EUR through the inverse of EUR->GBP
                        plan("P2", "GBP", ["R1"], base_adults=1, max_children=1),
                        plan("P3", "EUR", ["R1", "R2"], allowed=["PT", "ES"], blocked=["ES"])]},
        {"code": "USH", "name": "Dollar hotel", "environment": "sandbox", "country": "US",
         "timezone": "America/New_York", "currency": "USD", "max_child_age": 5,
         "room_types": [{"code": "Q", "name": "Queen", "max_occupancy": 3}],
         "rate_plans": [plan("U1", "USD", ["Q"], max_adults=2, max_occupancy=3),
                        plan("U2", "EUR", ["Q"], base_adults=1, blocked=["FR"])]},
        # Every plan in the hotel's currency: the statement prices these nights from one set of
        # currency factors (and with the rate alone when no plan charges a supplement).
        {"code": "GBH", "name": "Pound hotel", "environment": "sandbox", "country": "GB",
         "timezone": "Europe/London", "currency": "GBP", "max_child_age": 11,
         "room_types": [{"code": "D", "name": "Double", "max_occupancy": 3}],
         "rate_plans": [plan("G1", "GBP", ["D"]),
                        plan("G2", "GBP", ["D"], base_adults=1, blocked=["FR"]),
                        plan("G3", "GBP", ["D"], base_adults=3)]}],
    "partners": [{"code": "acme", "name": "Acme", "mappings": [
        {"property": "EUH", "hotel_code": "EU", "room_types": {"R1": "R1", "R2": "R2"},
         "rate_plans": {"P1": "P1", "P2": "P2", "P3": "P3"}},
        {"property": "USH", "hotel_code": "US", "room_types": {"Q": "Q"},
         "rate_plans": {"U1": "U1", "U2": "U2"}},
        {"property": "GBH", "hotel_code": "GB", "room_types": {"D": "D"},
         "rate_plans": {"G1": "G1", "G2": "G2", "G3": "G3"}}]}],
    "fx_rates": [{"base": "EUR", "quote": "USD", "rate": "1.0853"},
                 {"base": "EUR", "quote": "GBP", "rate": "0.8617"},
                 {"base": "GBP", "quote": "USD", "rate": "1.2611"}],
}
OFFERS = [("EUH", "R1", ["P1", "P2", "P3"]), ("EUH", "R2", ["P1", "P3"]),
          ("USH", "Q", ["U1", "U2"]), ("GBH", "D", ["G1", "G2", "G3"])]
HOTEL_CODES = ["EU", "US", "GB"]
DAYS = 7


def maybe(rng, p, value):
    return value if rng.random() < p else None


def random_ari(db, rng) -> None:
    for prop, room_type, plans in OFFERS:
        for offset in range(DAYS):
            set_room_days(db, prop, room_type, [day(offset)],
                          available=rng.choice([None, 0, 1, 2, 5, 5, 5, 5, 5, 5]),
                          closed=maybe(rng, 0.04, True), min_stay=maybe(rng, 0.1, rng.randint(1, 3)),
                          max_stay=maybe(rng, 0.1, rng.randint(1, 4)),
                          closed_to_arrival=maybe(rng, 0.05, True),
                          closed_to_departure=maybe(rng, 0.05, True))
            for rate_plan in plans:
                def amount(p):  # up to 3 decimals, so both sides must round the same way
                    return maybe(rng, p, Decimal(rng.randint(3000, 30000)) / 100
                                 + Decimal(rng.randint(0, 9)) / 1000)
                set_plan_days(db, prop, room_type, rate_plan, [day(offset)], rate=amount(0.97),
                              single_rate=amount(0.5), extra_adult_rate=amount(0.9),
                              extra_child_rate=amount(0.9), closed=maybe(rng, 0.04, True),
                              min_stay=maybe(rng, 0.07, rng.randint(1, 3)),
                              max_stay=maybe(rng, 0.07, rng.randint(2, 4)),
                              closed_to_arrival=maybe(rng, 0.07, True),
                              closed_to_departure=maybe(rng, 0.07, True))


def random_request(rng) -> dict:
    rooms = rng.choice([1, 1, 2, 3])

    def entry():
        children = rng.choice([0, 0, 0, 1, 2])
        occupancy = {"adults": rng.choice([1, 2, 2, 3])}
        if children:
            occupancy["children"] = children
            if rng.random() < 0.8:
                # the properties' max_child_age are 11 and 5: the edges weigh more
                occupancy["child_ages"] = [rng.choice([0, 4, 5, 6, 10, 11, 12, 17])
                                           for _ in range(children)]
        return occupancy

    occupancy = [entry()] if rng.random() < 0.5 else [entry() for _ in range(rooms)]
    offset, nights = rng.randint(0, 4), rng.choice([1, 1, 2, 3])
    request = {"check_in": day(offset).isoformat(), "check_out": day(offset + nights).isoformat(),
               "rooms": rooms, "occupancy": occupancy}
    for field, choices in (("nationality", [None, "PT", "ES", "FR"]),
                           ("currency", [None, "EUR", "USD", "GBP"])):
        value = rng.choice(choices)
        if value:
            request[field] = value
    return request


def expected_from_rates(client, headers, hotel_code, request):
    response = client.post(f"{API}/availability/rates", json={"hotel_code": hotel_code, **request},
                           headers=headers)
    assert response.status_code == 200, response.json
    data = response.json["data"]
    totals = [Decimal(str(rp["total_amount"])) for rt in data["room_types"]
              for rp in rt["rate_plans"] if rp["sellable"]]
    return {"hotel_code": hotel_code, "available": bool(totals),
            "lowest_total_amount": min(totals) if totals else None,
            "currency": data["currency"]}


@pytest.mark.parametrize("seed", range(6))
def test_search_agrees_with_rates(client, pull, db, seed):
    db.run(load_catalog, parse_catalog(json.dumps(CATALOG)))
    rng = random.Random(seed)
    random_ari(db, rng)
    available = 0
    for _ in range(25):
        request = random_request(rng)
        response = client.post(f"{API}/availability/search",
                               json={"hotel_codes": HOTEL_CODES, **request}, headers=pull)
        assert response.status_code == 200, (request, response.json)
        found = response.json["data"]["hotels"]
        for hotel in found:
            if hotel["lowest_total_amount"] is not None:
                hotel["lowest_total_amount"] = Decimal(str(hotel["lowest_total_amount"]))
        expected = [expected_from_rates(client, pull, code, request) for code in HOTEL_CODES]
        assert found == expected, request
        available += sum(h["available"] for h in found)
    # the random data must exercise both outcomes, or the comparison proves little
    assert 5 <= available <= 65, available
