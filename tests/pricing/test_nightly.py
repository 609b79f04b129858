"""The price of one room for one night, and of all the stay's rooms."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from connectivity.pricing import (
    NightRates,
    RoomOccupancy,
    night_amount,
    normalise_occupancy,
    room_night_price,
)

FULL = NightRates(rate=D("100"), single_rate=D("80"), extra_adult_rate=D("30"),
                  extra_child_rate=D("15"))
RATE_ONLY = NightRates(rate=D("100"))


@pytest.mark.parametrize("rates, room, base_adults, price", [
    pytest.param(FULL, RoomOccupancy(2), 2, D("100"), id="base adults pay rate"),
    pytest.param(FULL, RoomOccupancy(1), 2, D("80"), id="one adult with single_rate"),
    pytest.param(RATE_ONLY, RoomOccupancy(1), 2, D("100"), id="one adult without single_rate"),
    pytest.param(FULL, RoomOccupancy(1, (5,)), 2, D("95"),
                 id="one adult and a child: single_rate plus child"),
    pytest.param(NightRates(single_rate=D("80")), RoomOccupancy(1), 2, D("80"),
                 id="single_rate alone prices a lone adult"),
    pytest.param(NightRates(single_rate=D("80")), RoomOccupancy(2), 2, None,
                 id="single_rate alone does not price two"),
    pytest.param(FULL, RoomOccupancy(3), 2, D("130"), id="adult above base pays extra"),
    pytest.param(FULL, RoomOccupancy(3), 1, D("160"), id="two adults above base pay twice"),
    pytest.param(RATE_ONLY, RoomOccupancy(3), 2, None, id="adult above base, no extra rate"),
    pytest.param(RATE_ONLY, RoomOccupancy(2), 2, D("100"),
                 id="no extra rate needed at base"),
    pytest.param(FULL, RoomOccupancy(2, (3, None)), 2, D("130"), id="each child pays extra"),
    pytest.param(RATE_ONLY, RoomOccupancy(2, (3,)), 2, None, id="child, no child rate"),
    pytest.param(NightRates(rate=D("100"), extra_child_rate=D("0")), RoomOccupancy(2, (3,)),
                 2, D("100"), id="a zero child rate is a rate"),
    pytest.param(NightRates(), RoomOccupancy(2), 2, None, id="no rate at all"),
    pytest.param(None, RoomOccupancy(2), 2, None, id="no price row"),
    pytest.param(NightRates(rate=D("99.99"), extra_child_rate=D("12.345")),
                 RoomOccupancy(2, (1, 2)), 2, D("124.680"), id="unrounded here"),
])
def test_room_night_price(rates, room, base_adults, price):
    assert room_night_price(rates, room, base_adults) == price


def test_child_over_max_child_age_is_priced_as_an_adult():
    (child_12,) = normalise_occupancy([{"adults": 2, "children": 1, "child_ages": [12]}], 1, 11)
    (child_11,) = normalise_occupancy([{"adults": 2, "children": 1, "child_ages": [11]}], 1, 11)
    assert room_night_price(FULL, child_12, 2) == D("130")   # extra adult
    assert room_night_price(FULL, child_11, 2) == D("115")   # extra child


def test_lone_adult_with_an_over_age_child_is_not_single():
    (room,) = normalise_occupancy([{"adults": 1, "children": 1, "child_ages": [15]}], 1, 11)
    assert room_night_price(FULL, room, 2) == D("100")


def test_night_amount_sums_the_rooms():
    rooms = (RoomOccupancy(1), RoomOccupancy(2), RoomOccupancy(3, (4,)))
    assert night_amount(FULL, rooms, 2) == D("80") + D("100") + D("145")


def test_night_amount_is_none_when_any_room_cannot_be_priced():
    rooms = (RoomOccupancy(2), RoomOccupancy(3))
    assert night_amount(RATE_ONLY, rooms, 2) is None
