"""POST /availability/rates: one property's room types and rate plans, every night priced and
judged, with reasons, restrictions and the cancellation policy."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog

from tests.support.ari_days import set_plan_days, set_room_days
from tests.availability.conftest import API, day, stay

RATES = f"{API}/availability/rates"
DEMO = Path(__file__).resolve().parents[2] / "docs" / "demo-catalog.json"


def rates(client, headers, hotel_code="ACME-LIS", status=200, **fields):
    response = client.post(RATES, json={"hotel_code": hotel_code, **stay(**fields)},
                           headers=headers)
    assert response.status_code == status, response.json
    return response.json["data"] if status == 200 else response.json["error"]


def plans(data) -> dict[tuple[str, str], dict]:
    return {(rt["room_type_code"], rp["rate_plan_code"]): rp
            for rt in data["room_types"] for rp in rt["rate_plans"]}


def night(date, amount, available, **restrictions):
    return {"date": date.isoformat(), "amount": amount, "available_rooms": available,
            "closed": False, "min_stay": None, "max_stay": None, "closed_to_arrival": False,
            "closed_to_departure": False, **restrictions}


def test_the_whole_answer(client, pull, lisbon_ari):
    data = rates(client, pull)
    assert {k: data[k] for k in ("hotel_code", "check_in", "check_out", "currency")} == {
        "hotel_code": "ACME-LIS", "check_in": day(0).isoformat(),
        "check_out": day(2).isoformat(), "currency": "EUR"}
    assert [(rt["room_type_code"], [rp["rate_plan_code"] for rp in rt["rate_plans"]])
            for rt in data["room_types"]] == [("ACME-DBL", ["ACME-BAR", "ACME-NRF",
                                                            "ACME-RES", "ACME-USD"]),
                                              ("ACME-SGL", ["ACME-BAR"])]
    offers = plans(data)
    assert offers[("ACME-DBL", "ACME-BAR")] == {
        "rate_plan_code": "ACME-BAR", "board_type": "BB", "sellable": True, "reasons": [],
        "total_amount": 200, "nights": [night(day(0), 100, 5), night(day(1), 100, 5)],
        "cancellation_policy": {"non_refundable": False, "tiers": [
            {"within_hours": 48, "penalty": {"type": "nights", "value": 1}}]}}
    nrf = offers[("ACME-DBL", "ACME-NRF")]
    assert (nrf["board_type"], nrf["sellable"], nrf["total_amount"]) == ("RO", True, 180)
    assert nrf["cancellation_policy"] == {"non_refundable": True, "tiers": []}
    # two adults do not fit the single room: listed, priced where it can be, with the reason
    single = offers[("ACME-SGL", "ACME-BAR")]
    assert (single["sellable"], single["reasons"], single["total_amount"]) == (
        False, ["occupancy"], 140)


def test_narrowed_by_codes(client, pull, lisbon_ari):
    data = rates(client, pull, rate_plan_codes=["ACME-NRF"])
    assert list(plans(data)) == [("ACME-DBL", "ACME-NRF")]
    data = rates(client, pull, room_type_codes=["ACME-SGL"])
    assert list(plans(data)) == [("ACME-SGL", "ACME-BAR")]
    data = rates(client, pull, room_type_codes=["ACME-SGL"], rate_plan_codes=["ACME-NRF"])
    assert data["room_types"] == []


@pytest.mark.parametrize("level, fields, nights, reasons", [
    ("room", {"closed": True}, [1], ["closed"]),
    ("BAR", {"closed": True}, [0], ["closed"]),
    ("room", {"available": 0}, [1], ["sold_out"]),
    ("room", {"min_stay": 3}, [0], ["min_stay"]),
    ("BAR", {"max_stay": 1}, [0], ["max_stay"]),
    ("BAR", {"closed_to_arrival": True}, [0], ["closed_to_arrival"]),
    ("room", {"closed_to_departure": True}, [2], ["closed_to_departure"]),
    ("BAR", {"rate": None}, [1], ["no_rate"]),
    ("room", {"closed": True, "available": 0, "closed_to_arrival": True}, [0],
     ["closed", "sold_out", "closed_to_arrival"]),
])
def test_reasons(client, pull, db, lisbon_ari, level, fields, nights, reasons):
    dates = [day(n) for n in nights]
    if level == "room":
        set_room_days(db, "LIS1", "DBL", dates, **fields)
    else:
        set_plan_days(db, "LIS1", "DBL", level, dates, **fields)
    bar = plans(rates(client, pull))[("ACME-DBL", "ACME-BAR")]
    assert (bar["sellable"], bar["reasons"]) == (False, reasons)
    if "no_rate" in reasons:
        assert bar["total_amount"] is None and bar["nights"][1]["amount"] is None


def test_occupancy_and_nationality_reasons(client, pull, db, lisbon_ari):
    catalog = json.loads(DEMO.read_text())
    catalog["properties"][0]["rate_plans"][0]["allowed_nationalities"] = ["PT"]
    db.run(load_catalog, parse_catalog(json.dumps(catalog)))
    bar = plans(rates(client, pull, occupancy=[{"adults": 4}]))[("ACME-DBL", "ACME-BAR")]
    assert bar["reasons"] == ["occupancy", "nationality"]
    bar = plans(rates(client, pull, nationality="PT"))[("ACME-DBL", "ACME-BAR")]
    assert bar["sellable"] is True


def test_nights_show_the_effective_restrictions(client, pull, db, lisbon_ari):
    set_room_days(db, "LIS1", "DBL", [day(0)], min_stay=2, max_stay=10, closed_to_departure=True)
    set_plan_days(db, "LIS1", "DBL", "BAR", [day(0)], min_stay=1, max_stay=5)
    set_plan_days(db, "LIS1", "DBL", "NRF", [day(0)], min_stay=3)
    offers = plans(rates(client, pull))
    assert offers[("ACME-DBL", "ACME-BAR")]["nights"][0] == night(
        day(0), 100, 5, min_stay=2, max_stay=5, closed_to_departure=True)
    assert offers[("ACME-DBL", "ACME-BAR")]["sellable"] is True
    nrf = offers[("ACME-DBL", "ACME-NRF")]
    assert nrf["nights"][0]["min_stay"] == 3 and nrf["reasons"] == ["min_stay"]


def test_prices_by_occupancy_and_rooms(client, pull, lisbon_ari):
    # two rooms: a lone adult (single_rate 80) and two adults with a child of 4 (100 + 15)
    occupancy = [{"adults": 1}, {"adults": 2, "children": 1, "child_ages": [4]}]
    bar = plans(rates(client, pull, rooms=2, occupancy=occupancy))[("ACME-DBL", "ACME-BAR")]
    assert [n["amount"] for n in bar["nights"]] == [195, 195]
    assert bar["total_amount"] == 390


def test_currency_conversion_rounds_each_night(client, pull, db, lisbon_ari):
    set_plan_days(db, "LIS1", "DBL", "NRF", [day(0)], rate="90.01")
    data = rates(client, pull, currency="USD")
    nrf = plans(data)[("ACME-DBL", "ACME-NRF")]
    assert data["currency"] == "USD"
    # 90.01 x 1.085 = 97.66085 -> 97.66; 90 x 1.085 = 97.65
    assert [Decimal(str(n["amount"])) for n in nrf["nights"]] == [Decimal("97.66"),
                                                                  Decimal("97.65")]
    assert Decimal(str(nrf["total_amount"])) == Decimal("195.31")
    error = rates(client, pull, status=422, currency="CHF")
    assert error["code"] == "currency_not_supported"


def test_not_mapped_is_not_found(app, client, pull, lisbon_ari):
    assert rates(client, pull, "NOPE", status=404)["code"] == "not_found"
    runner = app.test_cli_runner()
    assert runner.invoke(args=["distribution", "pause", "--partner", "acme",
                               "--property", "LIS1"]).exit_code == 0
    assert rates(client, pull, status=404)["code"] == "not_found"


def test_another_partners_hotel_is_not_found(client, db, issue, lisbon_ari):
    other = {"properties": [], "fx_rates": [], "partners": [
        {"code": "globex", "name": "Globex", "mappings": [
            {"property": "OPO1", "hotel_code": "GLX-OPO", "room_types": {"TWN": "T"},
             "rate_plans": {"BAR": "B"}}]}]}
    db.run(load_catalog, parse_catalog(json.dumps(other)))
    globex = {"Authorization": f"Bearer {issue('pull', partner='globex').token}"}
    assert rates(client, globex, "ACME-LIS", status=404)["code"] == "not_found"
    assert rates(client, globex, "GLX-OPO")["hotel_code"] == "GLX-OPO"
