"""quick_items may only ever accept what AriItemSchema accepts, loaded the same way; what it is
unsure of goes to the schema. Random items, valid and not, hold the two to that."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from connectivity.ari.quick_items import FIELDS, quick_ari_items
from connectivity.ari.schemas import AriItemSchema, AriRequestSchema

SCHEMA = AriItemSchema()
ANYTHING = st.one_of(st.none(), st.booleans(), st.integers(-10, 10_000),
                     st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=5),
                     st.lists(st.integers(), max_size=2))
CODE = st.text(min_size=1, max_size=120)
AMOUNT = st.one_of(st.integers(0, 10**6), st.decimals(0, 10**6, places=2).map(str),
                   st.floats(0, 1e6))
NIGHTS = st.integers(1, 365)
# Mostly valid values, each near its bounds, so that whole items are often plainly valid.
VALID = {
    "room_type_code": CODE, "rate_plan_code": CODE,
    "date": st.dates(dt.date(2020, 1, 1), dt.date(2030, 12, 31)).map(dt.date.isoformat),
    "availability": st.integers(0, 9999), "min_stay": NIGHTS, "max_stay": NIGHTS,
    "rate": AMOUNT, "single_rate": AMOUNT, "extra_adult_rate": AMOUNT,
    "extra_child_rate": AMOUNT, "currency": st.sampled_from(["EUR", "USD", "JPY", "BHD"]),
    "closed": st.booleans(), "closed_to_arrival": st.booleans(),
    "closed_to_departure": st.booleans(),
}
BAD_AMOUNT = st.one_of(st.integers(-5, -1), st.just(10**12), st.decimals(allow_nan=True).map(str),
                       st.floats(allow_nan=True, allow_infinity=True),
                       st.sampled_from(["1e-9", "abc", "NaN", "-0.01", "1E+12", "", " 7",
                                        "1.0000001", "1e3"]))
INVALID = {
    "room_type_code": st.one_of(st.just(""), st.text(min_size=121, max_size=122), ANYTHING),
    "rate_plan_code": st.one_of(st.just(""), st.text(min_size=121, max_size=122), ANYTHING),
    "date": st.one_of(st.sampled_from(["2026-02-30", "20261121", "2026-W47-1", "2026-1-1",
                                       "2026-11-21T00:00"]), ANYTHING),
    "availability": st.one_of(st.sampled_from([-1, 10000, 2.0, True, "3"]), ANYTHING),
    "min_stay": st.one_of(st.sampled_from([0, 366, 1.0, False]), ANYTHING),
    "max_stay": st.one_of(st.sampled_from([0, 366, 1.0, False]), ANYTHING),
    "rate": BAD_AMOUNT, "single_rate": BAD_AMOUNT, "extra_adult_rate": BAD_AMOUNT,
    "extra_child_rate": BAD_AMOUNT,
    "currency": st.one_of(st.sampled_from(["eur", "XYZ", "EURO", "EU"]), ANYTHING),
    "closed": ANYTHING, "closed_to_arrival": ANYTHING, "closed_to_departure": ANYTHING,
    "partner_id": ANYTHING,
}


def value_of(name: str):
    """Valid four times in five; the rest anything at all, valid or not."""
    if name not in VALID:
        return INVALID[name]
    return st.integers(0, 4).flatmap(lambda n: VALID[name] if n else INVALID[name])


REQUIRED = ("room_type_code", "date")
ITEMS = st.fixed_dictionaries(
    {name: value_of(name) for name in REQUIRED},
    optional={name: value_of(name) for name in INVALID if name not in REQUIRED})


@settings(max_examples=1000, deadline=None)
@given(ITEMS)
def test_what_quick_items_accepts_the_schema_accepts_the_same_way(item):
    quick = quick_ari_items([item])
    if quick is None:
        return
    assert SCHEMA.load(item) == quick[0]


def test_items_without_their_required_fields_are_left_to_the_schema():
    assert quick_ari_items([{"date": "2027-01-01"}]) is None
    assert quick_ari_items([{"room_type_code": "DBL"}]) is None
    assert quick_ari_items([]) is None


@settings(max_examples=300, deadline=None)
@given(st.lists(ITEMS, min_size=1, max_size=4), st.text(max_size=121))
def test_a_request_loads_the_same_by_either_path(items, hotel_code):
    body = {"hotel_code": hotel_code, "items": items}
    try:
        expected = _schema_only(body)
    except ValidationError:
        expected = None
    try:
        got = AriRequestSchema().load(body)
    except ValidationError:
        got = None
    assert got == expected


def _schema_only(body):
    """The schema without the quick path."""
    return super(AriRequestSchema, AriRequestSchema()).load(body)


def test_plainly_valid_items_take_the_quick_path():
    items = [{"room_type_code": "DBL", "rate_plan_code": "BAR", "date": "2027-01-31",
              "availability": 3, "rate": 99.9, "single_rate": "80", "currency": "EUR",
              "closed": False, "min_stay": 2, "max_stay": 7, "closed_to_arrival": True,
              "closed_to_departure": False, "extra_adult_rate": 0, "extra_child_rate": "1.5"}]
    assert set(items[0]) == FIELDS
    assert quick_ari_items(items) == [SCHEMA.load(items[0])]


BASE = {"room_type_code": "DBL", "rate_plan_code": "BAR", "date": "2027-01-31"}
EDGES = [(name, value) for name, values in {
    "room_type_code": ["", "x" * 120, "x" * 121, 5, None],
    "rate_plan_code": ["", "x" * 120, "x" * 121, None],
    "date": ["2027-02-29", "2028-02-29", "20270131", "2027-1-31", " 2027-01-31", None],
    "availability": [-1, 0, 9999, 10000, 1.0, True, "1", None],
    "min_stay": [0, 1, 365, 366, 2.0, None], "max_stay": [0, 1, 365, 366, False],
    "rate": [-1, -0.01, 0, "0", 999999999999.99, 10**12, "1e12", "0.000001", "0.0000001",
             "1.1000000", "NaN", "Infinity", "", "1,5", True, None, float("nan")],
    "currency": ["EUR", "eur", "XYZ", "EURO", None], "closed": [True, 0, "false", None],
    "bogus": [1],
}.items() for value in values]


@pytest.mark.parametrize("name, value", EDGES)
def test_each_bound_is_judged_as_the_schema_judges_it(name, value):
    item = {**BASE, name: value}
    quick = quick_ari_items([item])
    try:
        expected = SCHEMA.load(item)
    except ValidationError:
        expected = None
    # Unsure is always allowed (the schema then decides); a wrong "valid" never is.
    assert quick is None or quick == [expected]
    if expected is not None:
        assert quick == [expected], "a plainly valid value should take the quick path"
