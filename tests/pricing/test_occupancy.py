"""Occupancy from a request's `occupancy` array and from a booking's `guests`."""

from __future__ import annotations

import pytest

from connectivity.pricing import (
    OccupancyError,
    RoomOccupancy,
    normalise_occupancy,
    occupancy_from_guests,
)

MAX_CHILD_AGE = 11


def errors_of(call) -> dict[str, list[str]]:
    with pytest.raises(OccupancyError) as info:
        call()
    return info.value.fields


# --- the occupancy array ------------------------------------------------------------------


@pytest.mark.parametrize("entries, rooms, expected", [
    pytest.param([{"adults": 2}], 1, (RoomOccupancy(2),), id="one room, one entry"),
    pytest.param([{"adults": 2}], 3, (RoomOccupancy(2),) * 3, id="one entry for every room"),
    pytest.param([{"adults": 1}, {"adults": 2, "children": 1, "child_ages": [4]}], 2,
                 (RoomOccupancy(1), RoomOccupancy(2, (4,))), id="one entry per room, in order"),
    pytest.param([{"adults": 2, "children": 2}], 1, (RoomOccupancy(2, (None, None)),),
                 id="children without ages are children"),
    pytest.param([{"adults": 2, "children": 0, "child_ages": []}], 1, (RoomOccupancy(2),),
                 id="zero children, empty ages"),
    pytest.param([{"adults": 2, "children": None}], 1, (RoomOccupancy(2),),
                 id="children null means none"),
    pytest.param([{"adults": 1, "children": 2, "child_ages": [11, 12]}], 1,
                 (RoomOccupancy(2, (11,)),), id="over max_child_age is an adult, at it a child"),
    pytest.param([{"adults": 1, "children": 2, "child_ages": [17, 0]}], 2,
                 (RoomOccupancy(2, (0,)),) * 2, id="over-age child moved in every room"),
])
def test_normalise_occupancy(entries, rooms, expected):
    assert normalise_occupancy(entries, rooms, MAX_CHILD_AGE) == expected


@pytest.mark.parametrize("count, rooms", [(2, 3), (3, 2), (2, 1), (4, 3)])
def test_entry_count_neither_one_nor_rooms_is_refused(count, rooms):
    fields = errors_of(lambda: normalise_occupancy([{"adults": 1}] * count, rooms, 11))
    assert list(fields) == ["occupancy"]
    assert str(rooms) in fields["occupancy"][0]


def test_no_entries_is_refused():
    assert list(errors_of(lambda: normalise_occupancy([], 1, 11))) == ["occupancy"]


@pytest.mark.parametrize("entry", [
    {"adults": 2, "children": 2, "child_ages": [5]},
    {"adults": 2, "children": 1, "child_ages": [5, 6]},
    {"adults": 2, "child_ages": [5]},                     # children defaults to 0
    {"adults": 2, "children": 1, "child_ages": []},
])
def test_child_ages_count_must_match_children(entry):
    fields = errors_of(lambda: normalise_occupancy([{"adults": 1}, entry], 2, 11))
    assert list(fields) == ["occupancy.1.child_ages"]


def test_child_ages_mismatch_in_the_single_entry_reports_index_zero():
    fields = errors_of(lambda: normalise_occupancy(
        [{"adults": 2, "children": 1, "child_ages": [3, 4]}], 4, 11))
    assert list(fields) == ["occupancy.0.child_ages"]


def test_every_failing_path_is_reported_at_once():
    fields = errors_of(lambda: normalise_occupancy([
        {"adults": 0},
        {"adults": 1, "children": 1, "child_ages": [1, 2]},
        {"adults": 1, "children": 2, "child_ages": [3, -1]},
    ], 3, 11))
    assert set(fields) == {"occupancy.0.adults", "occupancy.1.child_ages",
                           "occupancy.2.child_ages.1"}


@pytest.mark.parametrize("entry, path", [
    ({}, "occupancy.0.adults"),
    ({"adults": True}, "occupancy.0.adults"),
    ({"adults": "2"}, "occupancy.0.adults"),
    ({"adults": 1, "children": -1}, "occupancy.0.children"),
    ({"adults": 1, "children": 1, "child_ages": "5"}, "occupancy.0.child_ages"),
    ({"adults": 1, "children": 1, "child_ages": [None]}, "occupancy.0.child_ages.0"),
])
def test_malformed_entries_become_field_errors_not_crashes(entry, path):
    assert path in errors_of(lambda: normalise_occupancy([entry], 1, 11))


def test_field_prefix_can_be_chosen():
    fields = errors_of(lambda: normalise_occupancy([{"adults": 0}], 1, 11, field="rooms"))
    assert list(fields) == ["rooms.0.adults"]


def test_error_is_a_value_error_with_a_readable_message():
    with pytest.raises(ValueError, match="occupancy.0.adults"):
        normalise_occupancy([{"adults": 0}], 1, 11)


def test_room_occupancy_counts():
    room = RoomOccupancy(2, (3, None))
    assert (room.adults, room.children, room.total) == (2, 2, 4)
    assert room.with_extra_adult() == RoomOccupancy(3, (3, None))


# --- guests of a booking ------------------------------------------------------------------


def guest(room, adult=True, age=None):
    g = {"room_number": room, "is_adult": adult, "first_name": "A", "last_name": "B"}
    if age is not None:
        g["age"] = age
    return g


@pytest.mark.parametrize("guests, rooms, expected", [
    pytest.param([guest(1)], 1, (RoomOccupancy(1),), id="one adult"),
    pytest.param([guest(1), guest(1), guest(1, False, 5)], 1, (RoomOccupancy(2, (5,)),),
                 id="two adults and a child"),
    pytest.param([guest(2), guest(1), guest(2, False)], 2,
                 (RoomOccupancy(1), RoomOccupancy(1, (None,))),
                 id="per room_number, any order; child without age is a child"),
    pytest.param([guest(1), guest(1, False, 12), guest(1, False, 11)], 1,
                 (RoomOccupancy(2, (11,)),), id="child over max_child_age counts as adult"),
    pytest.param([guest(1, age=8)], 1, (RoomOccupancy(1),),
                 id="is_adult wins over a stated age"),
])
def test_occupancy_from_guests(guests, rooms, expected):
    assert occupancy_from_guests(guests, rooms, MAX_CHILD_AGE) == expected


@pytest.mark.parametrize("number", [0, 3, -1, None, "1"])
def test_guest_room_number_out_of_range_is_refused(number):
    fields = errors_of(lambda: occupancy_from_guests([guest(1), guest(2), guest(number)], 2, 11))
    assert list(fields) == ["guests.2.room_number"]


def test_every_room_needs_an_adult():
    fields = errors_of(lambda: occupancy_from_guests([guest(1), guest(3)], 3, 11))
    assert fields == {"guests": ["room 2 must have at least one adult"]}


def test_a_room_of_children_only_is_refused_even_if_one_is_over_age():
    fields = errors_of(lambda: occupancy_from_guests([guest(1), guest(2, False, 16)], 2, 11))
    assert fields == {"guests": ["room 2 must have at least one adult"]}


def test_no_guests_means_no_adult_anywhere():
    fields = errors_of(lambda: occupancy_from_guests([], 2, 11))
    assert len(fields["guests"]) == 2


def test_guest_with_bad_age_is_a_field_error():
    fields = errors_of(lambda: occupancy_from_guests([guest(1), guest(1, False, -3)], 1, 11))
    assert list(fields) == ["guests.1.age"]


@pytest.mark.parametrize("call", [
    lambda: normalise_occupancy([{"adults": 1}], 0, 11),
    lambda: occupancy_from_guests([guest(1)], 0, 11),
])
def test_zero_rooms_is_a_programming_error(call):
    with pytest.raises(ValueError):
        call()
