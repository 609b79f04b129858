"""POST /availability/search: which hotels have something sellable and from what total, for the
caller's mapped, active hotels only."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog

from tests.support.ari_days import set_plan_days, set_room_days
from tests.availability.conftest import API, day, stay

SEARCH = f"{API}/availability/search"
DEMO = Path(__file__).resolve().parents[2] / "docs" / "demo-catalog.json"


def search(client, headers, codes=("ACME-LIS",), **fields):
    response = client.post(SEARCH, json={"hotel_codes": list(codes), **stay(**fields)},
                           headers=headers)
    assert response.status_code == 200, response.json
    return response.json["data"]


def lisbon(client, headers, **fields):
    [hotel] = search(client, headers, **fields)["hotels"]
    assert hotel["hotel_code"] == "ACME-LIS"
    return hotel


@pytest.mark.parametrize("occupancy, rooms, lowest", [
    # NRF 90 beats BAR 100; the single room cannot hold two
    ([{"adults": 2}], 1, 180),
    # one adult: SGL/BAR single_rate 60 beats DBL/BAR single 80 and NRF 90 (no single_rate)
    ([{"adults": 1}], 1, 120),
    # three adults: only BAR takes them, 100 + one extra adult 30
    ([{"adults": 3}], 1, 260),
    # a child of 5: NRF 90 + 10 beats BAR 100 + 15
    ([{"adults": 2, "children": 1, "child_ages": [5]}], 1, 200),
    # 11 is LIS1's max_child_age: still a child
    ([{"adults": 2, "children": 1, "child_ages": [11]}], 1, 200),
    # a child of 12 is over LIS1's max_child_age 11: three adults, BAR only
    ([{"adults": 2, "children": 1, "child_ages": [12]}], 1, 260),
    # a child of unknown age is priced as a child
    ([{"adults": 2, "children": 1}], 1, 200),
    # one entry applies to every room: two single rooms
    ([{"adults": 1}], 2, 240),
    # one entry per room: a single adult and a couple; only DBL holds the couple, and a stay
    # is one room type and rate plan: BAR (80 + 100) and NRF (90 + 90) tie at 180 a night
    ([{"adults": 1}, {"adults": 2}], 2, 360),
])
def test_lowest_total_for_the_rooms_and_occupancy(client, pull, lisbon_ari, occupancy, rooms,
                                                  lowest):
    hotel = lisbon(client, pull, occupancy=occupancy, rooms=rooms)
    assert hotel == {"hotel_code": "ACME-LIS", "available": True,
                     "lowest_total_amount": lowest, "currency": "EUR"}


def test_not_enough_rooms_is_not_available(client, pull, lisbon_ari):
    assert lisbon(client, pull, rooms=6) == {"hotel_code": "ACME-LIS", "available": False,
                                             "lowest_total_amount": None, "currency": "EUR"}


@pytest.mark.parametrize("level, fields, nights, expected", [
    # a room-type closure closes every plan of it
    ("room", {"closed": True}, [1], None),
    # a rate-plan closure leaves the other plan
    ("NRF", {"closed": True}, [1], 200),
    # availability 0 on one night
    ("room", {"available": 0}, [1], None),
    # min_stay as set on the arrival date; on another night it does not count
    ("room", {"min_stay": 3}, [0], None),
    ("room", {"min_stay": 3}, [1], 180),
    ("NRF", {"min_stay": 3}, [0], 200),
    ("NRF", {"max_stay": 1}, [0], 200),
    ("room", {"closed_to_arrival": True}, [0], None),
    ("room", {"closed_to_arrival": True}, [1], 180),
    ("NRF", {"closed_to_arrival": True}, [0], 200),
    # the check-out date is not a night, but its closed_to_departure counts
    ("room", {"closed_to_departure": True}, [2], None),
    ("NRF", {"closed_to_departure": True}, [2], 200),
    ("room", {"closed_to_departure": True}, [1], 180),
    # a night without a rate
    ("NRF", {"rate": None}, [1], 200),
])
def test_restrictions_and_inventory(client, pull, db, lisbon_ari, level, fields, nights,
                                    expected):
    dates = [day(n) for n in nights]
    if level == "room":
        set_room_days(db, "LIS1", "DBL", dates, **fields)
    else:
        set_plan_days(db, "LIS1", "DBL", level, dates, **fields)
    hotel = lisbon(client, pull)  # two adults, two nights: only DBL can take them
    assert hotel["available"] is (expected is not None)
    assert hotel["lowest_total_amount"] == expected


def test_a_night_never_loaded_is_not_sellable(client, pull, lisbon_ari):
    # ARI exists for four nights from START; a stay running past them has a night without any
    assert lisbon(client, pull, nights=2, offset=3)["available"] is False
    assert lisbon(client, pull, nights=1, offset=3)["available"] is True


@pytest.mark.parametrize("currency, lowest", [
    ("EUR", 180), ("USD", Decimal("195.30")), ("GBP", Decimal("154.80"))])
def test_currency_conversion_per_night(client, pull, lisbon_ari, currency, lowest):
    hotel = lisbon(client, pull, currency=currency)
    assert hotel["currency"] == currency
    assert Decimal(str(hotel["lowest_total_amount"])) == lowest


def test_a_currency_without_fx_rate_is_refused(client, pull, lisbon_ari):
    response = client.post(SEARCH, json={"hotel_codes": ["ACME-LIS"], **stay(currency="JPY")},
                           headers=pull)
    assert response.status_code == 422
    error = response.json["error"]
    assert error["code"] == "currency_not_supported"
    assert error["details"] == {"currency": "JPY", "hotel_codes": ["ACME-LIS"]}


def test_nationality_rules(client, pull, db, lisbon_ari):
    catalog = json.loads(DEMO.read_text())
    nrf = catalog["properties"][0]["rate_plans"][1]
    nrf["allowed_nationalities"] = ["PT", "ES"]
    db.run(load_catalog, parse_catalog(json.dumps(catalog)))
    # without a nationality, or with one not allowed, the cheaper NRF is not sold
    assert lisbon(client, pull)["lowest_total_amount"] == 200
    assert lisbon(client, pull, nationality="FR")["lowest_total_amount"] == 200
    assert lisbon(client, pull, nationality="ES")["lowest_total_amount"] == 180
    nrf["allowed_nationalities"], nrf["blocked_nationalities"] = [], ["FR"]
    db.run(load_catalog, parse_catalog(json.dumps(catalog)))
    assert lisbon(client, pull, nationality="FR")["lowest_total_amount"] == 200
    assert lisbon(client, pull, nationality="DE")["lowest_total_amount"] == 180


def test_only_mapped_active_hotels_answer_in_request_order(app, client, pull, db, lisbon_ari):
    other = json.loads(DEMO.read_text())
    other["properties"] = [{**other["properties"][1], "code": "MAD1", "environment": "production",
                            "timezone": "Europe/Madrid"}]
    other["partners"] = [
        {"code": "globex", "name": "Globex", "mappings": [
            {"property": "LIS1", "hotel_code": "GLX-LIS", "room_types": {"DBL": "G-DBL"},
             "rate_plans": {"NRF": "G-NRF"}}]},
        {"code": "acme", "name": "Acme Travel", "mappings": [
            {"property": "MAD1", "hotel_code": "ACME-MAD", "room_types": {"TWN": "T"}}]}]
    db.run(load_catalog, parse_catalog(json.dumps(other)))
    codes = ["NOPE", "ACME-OPO", "GLX-LIS", "ACME-LIS", "ACME-MAD", "ACME-LIS"]
    data = search(client, pull, codes)
    assert [h["hotel_code"] for h in data["hotels"]] == ["ACME-OPO", "ACME-LIS"]
    assert data["hotels"][0] == {"hotel_code": "ACME-OPO", "available": False,
                                 "lowest_total_amount": None, "currency": "EUR"}
    # another partner's code and a production hotel seen with a sandbox key are unknown
    assert data["unknown_hotel_codes"] == ["NOPE", "GLX-LIS", "ACME-MAD"]
    assert data["paused_hotel_codes"] == []

    # A paused hotel is not sold: unknown, as a typo is (contract 13.1), and also named as
    # paused (another partner's code stays unknown only, even though Globex's mapping of the
    # same property is active).
    runner = app.test_cli_runner()
    assert runner.invoke(args=["distribution", "pause", "--partner", "acme",
                               "--property", "LIS1"]).exit_code == 0
    data = search(client, pull, ["ACME-LIS"])
    assert data == {"hotels": [], "unknown_hotel_codes": ["ACME-LIS"],
                    "paused_hotel_codes": ["ACME-LIS"]}
    data = search(client, pull, ["NOPE", "ACME-LIS", "GLX-LIS", "ACME-OPO"])
    assert [h["hotel_code"] for h in data["hotels"]] == ["ACME-OPO"]
    assert data["unknown_hotel_codes"] == ["NOPE", "ACME-LIS", "GLX-LIS"]
    assert data["paused_hotel_codes"] == ["ACME-LIS"]

    assert runner.invoke(args=["distribution", "resume", "--partner", "acme",
                               "--property", "LIS1"]).exit_code == 0
    data = search(client, pull, ["ACME-LIS"])
    assert [h["hotel_code"] for h in data["hotels"]] == ["ACME-LIS"]
    assert data["paused_hotel_codes"] == []


def test_two_hundred_hotels_in_one_call(client, pull, db, catalog):
    many = json.loads(DEMO.read_text())
    template = many["properties"][1]
    many["properties"] = [{**template, "code": f"H{i:03d}"} for i in range(200)]
    many["partners"] = [{"code": "acme", "name": "Acme Travel", "mappings": [
        {"property": f"H{i:03d}", "hotel_code": f"ACME-{i:03d}", "active": True,
         "room_types": {"TWN": "TWN"}, "rate_plans": {"BAR": "BAR"}} for i in range(200)]}]
    db.run(load_catalog, parse_catalog(json.dumps(many)))
    for i in range(0, 200, 7):  # every seventh hotel has rooms and a price of 100 + i
        set_room_days(db, f"H{i:03d}", "TWN", [day(0), day(1)], available=1)
        set_plan_days(db, f"H{i:03d}", "TWN", "BAR", [day(0), day(1)], rate=100 + i)
    data = search(client, pull, [f"ACME-{i:03d}" for i in range(200)])
    assert len(data["hotels"]) == 200 and data["unknown_hotel_codes"] == []
    for i, hotel in enumerate(data["hotels"]):
        assert hotel["available"] is (i % 7 == 0)
        assert hotel["lowest_total_amount"] == (2 * (100 + i) if i % 7 == 0 else None)


def test_check_in_is_judged_in_each_hotels_timezone(client, pull, db, catalog):
    """Pacific/Kiritimati (UTC+14) and Pacific/Pago_Pago (UTC-11): at any moment at least one of
    them is on another date than UTC, so the test bites whatever the hour it runs at."""
    import datetime as dt
    from zoneinfo import ZoneInfo
    zones = json.loads(DEMO.read_text())
    template = zones["properties"][1]
    zones["properties"] = [{**template, "code": "KIR", "timezone": "Pacific/Kiritimati"},
                           {**template, "code": "PPG", "timezone": "Pacific/Pago_Pago"}]
    zones["partners"] = [{"code": "acme", "name": "Acme Travel", "mappings": [
        {"property": p, "hotel_code": p, "active": True, "room_types": {}, "rate_plans": {}}
        for p in ("KIR", "PPG")]}]
    db.run(load_catalog, parse_catalog(json.dumps(zones)))
    now = dt.datetime.now(dt.timezone.utc)
    for code, zone in (("KIR", "Pacific/Kiritimati"), ("PPG", "Pacific/Pago_Pago")):
        today = now.astimezone(ZoneInfo(zone)).date()
        body = {"hotel_codes": [code], "check_in": today.isoformat(),
                "check_out": (today + dt.timedelta(days=1)).isoformat(), "rooms": 1,
                "occupancy": [{"adults": 1}]}
        assert client.post(SEARCH, json=body, headers=pull).status_code == 200
        body["check_in"] = (today - dt.timedelta(days=1)).isoformat()
        response = client.post(SEARCH, json=body, headers=pull)
        assert response.status_code == 422, (code, response.json)
        assert list(response.json["error"]["details"]["fields"]) == ["check_in"]


def test_needs_ari_read(client, issue, catalog):
    push = {"Authorization": f"Bearer {issue('push', signed=False).token}"}
    response = client.post(SEARCH, json={"hotel_codes": ["ACME-LIS"], **stay()}, headers=push)
    assert response.status_code == 403
    assert response.json["error"]["code"] == "insufficient_scope"
