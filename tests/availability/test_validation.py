"""The field rules of the specification's search and rates tables: every violation is 422
`validation_failed` naming each failing path, never a 5xx."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.availability.conftest import API, day, stay

SEARCH, RATES = f"{API}/availability/search", f"{API}/availability/rates"
UTC_TODAY = dt.datetime.now(dt.timezone.utc).date()


def search_body(**changes):
    return {"hotel_codes": ["ACME-LIS"], **stay(), **changes}


def rates_body(**changes):
    return {"hotel_code": "ACME-LIS", **stay(), **changes}


def present(body):
    """The body without the fields a case set to None (to send it without them)."""
    return {k: v for k, v in body.items() if v is not None}


def assert_refused_at(response, path):
    """422 validation_failed naming exactly this one field path."""
    assert response.status_code == 422, response.json
    error = response.json["error"]
    assert error["code"] == "validation_failed"
    assert list(error["details"]["fields"]) == [path], error


COMMON = [
    # (changes, failing path)
    ({"check_in": None}, "check_in"),
    ({"check_in": "2026-1-05"}, "check_in"),
    ({"check_in": "20270105"}, "check_in"),           # ISO basic format: not Y-m-d
    ({"check_in": "2027-W01-1"}, "check_in"),         # ISO week date
    ({"check_in": "2027-02-30"}, "check_in"),
    ({"check_in": 20270105}, "check_in"),
    # in the past everywhere on earth
    ({"check_in": (UTC_TODAY - dt.timedelta(days=2)).isoformat(),
      "check_out": day(1).isoformat()}, "check_in"),
    ({"check_out": day(0).isoformat()}, "check_out"),  # same-day: day use is another product
    ({"check_out": (day(0) - dt.timedelta(days=1)).isoformat()}, "check_out"),
    ({"check_out": (day(0) + dt.timedelta(days=366)).isoformat()}, "check_out"),
    ({"rooms": 0}, "rooms"),
    ({"rooms": 31}, "rooms"),
    ({"rooms": "1"}, "rooms"),
    ({"rooms": 1.5}, "rooms"),
    ({"rooms": True}, "rooms"),
    ({"rooms": 2 ** 70}, "rooms"),
    ({"occupancy": []}, "occupancy"),
    ({"occupancy": {"adults": 2}}, "occupancy"),
    ({"occupancy": [{"adults": 2}] * 31}, "occupancy"),
    ({"rooms": 3, "occupancy": [{"adults": 2}, {"adults": 1}]}, "occupancy"),
    ({"occupancy": [{"adults": 0}]}, "occupancy.0.adults"),
    ({"occupancy": [{"adults": 21}]}, "occupancy.0.adults"),
    ({"occupancy": [{"children": 1}]}, "occupancy.0.adults"),
    ({"occupancy": [{"adults": 2, "children": 11}]}, "occupancy.0.children"),
    ({"occupancy": [{"adults": 2, "children": -1}]}, "occupancy.0.children"),
    ({"occupancy": [{"adults": 2, "children": 1, "child_ages": [18]}]},
     "occupancy.0.child_ages.0"),
    ({"occupancy": [{"adults": 2, "children": 2, "child_ages": [3]}]},
     "occupancy.0.child_ages"),
    ({"occupancy": [{"adults": 2, "child_ages": [3]}]}, "occupancy.0.child_ages"),
    ({"occupancy": [{"adults": 2, "pets": 1}]}, "occupancy.0.pets"),
    ({"nationality": "pt"}, "nationality"),
    ({"nationality": "XX"}, "nationality"),
    ({"nationality": "PRT"}, "nationality"),
    ({"currency": "eur"}, "currency"),
    ({"currency": "ABC"}, "currency"),
    ({"currency": 978}, "currency"),
    ({"partner_id": 1}, "partner_id"),
    ({"price": 1}, "price"),
]


@pytest.mark.parametrize("changes, path", COMMON + [
    ({"hotel_codes": []}, "hotel_codes"),
    ({"hotel_codes": "ACME-LIS"}, "hotel_codes"),
    ({"hotel_codes": [f"H{i}" for i in range(201)]}, "hotel_codes"),
    ({"hotel_codes": ["x" * 121]}, "hotel_codes.0"),
    ({"hotel_codes": ["ACME-LIS", 7]}, "hotel_codes.1"),
    ({"hotel_codes": [""]}, "hotel_codes.0"),
    ({"hotel_code": "ACME-LIS"}, "hotel_code"),
])
def test_search_field_rules(client, pull, changes, path):
    assert_refused_at(client.post(SEARCH, json=present(search_body(**changes)), headers=pull),
                      path)


@pytest.mark.parametrize("changes, path", COMMON + [
    ({"hotel_code": None}, "hotel_code"),
    ({"hotel_code": "x" * 121}, "hotel_code"),
    ({"hotel_code": ["ACME-LIS"]}, "hotel_code"),
    ({"room_type_codes": [f"R{i}" for i in range(101)]}, "room_type_codes"),
    ({"rate_plan_codes": [f"R{i}" for i in range(101)]}, "rate_plan_codes"),
    ({"rate_plan_codes": ["x" * 121]}, "rate_plan_codes.0"),
    ({"room_type_codes": "ACME-DBL"}, "room_type_codes"),
    ({"hotel_codes": ["ACME-LIS"]}, "hotel_codes"),
])
def test_rates_field_rules(client, pull, changes, path):
    assert_refused_at(client.post(RATES, json=present(rates_body(**changes)), headers=pull),
                      path)


def test_every_failing_path_at_once(client, pull):
    body = {"hotel_codes": [], "check_in": "tomorrow", "check_out": day(0).isoformat(),
            "rooms": 2, "occupancy": [{"adults": 0}, {"adults": 1}, {"adults": 1}],
            "nationality": "pt", "extra": True}
    response = client.post(SEARCH, json=body, headers=pull)
    assert response.status_code == 422
    assert set(response.json["error"]["details"]["fields"]) == {
        "hotel_codes", "check_in", "occupancy", "occupancy.0.adults",
        "nationality", "extra"}


@pytest.mark.parametrize("endpoint, body", [
    (SEARCH, search_body(rooms=30, occupancy=[{"adults": 20, "children": 10,
                                               "child_ages": [17] * 10}])),
    (RATES, rates_body(rooms=30, occupancy=[{"adults": 20, "children": 10,
                                             "child_ages": [17] * 10}])),
    (SEARCH, search_body(check_out=(day(0) + dt.timedelta(days=365)).isoformat())),
    (RATES, rates_body(check_out=(day(0) + dt.timedelta(days=365)).isoformat())),
    (SEARCH, search_body(hotel_codes=[f"H{i}" for i in range(200)], currency="JPY")),
])
def test_the_bounds_themselves_are_accepted(client, pull, endpoint, body):
    response = client.post(endpoint, json=body, headers=pull)
    assert response.status_code == 200, response.json
