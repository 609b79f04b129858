"""Occupancy limits and nationality rules of a rate plan."""

from __future__ import annotations

import pytest

from connectivity.pricing import (
    RatePlanRules,
    RoomOccupancy,
    nationality_allowed,
    normalise_occupancy,
    occupancy_fits,
)

PLAN = RatePlanRules.build(base_adults=2, max_adults=3, max_children=2, max_occupancy=4)


@pytest.mark.parametrize("room, room_type_max, fits", [
    (RoomOccupancy(1), 4, True),
    (RoomOccupancy(3), 4, True),                      # max_adults exactly
    (RoomOccupancy(4), 4, False),                     # above max_adults
    (RoomOccupancy(1, (5, 6)), 4, True),              # max_children exactly
    (RoomOccupancy(1, (5, 6, 7)), 4, False),          # above max_children
    (RoomOccupancy(2, (5, 6)), 4, True),              # max_occupancy exactly
    (RoomOccupancy(3, (5, 6)), 4, False),             # above max_occupancy
    (RoomOccupancy(2, (5,)), 3, True),                # room type capacity exactly
    (RoomOccupancy(2, (5,)), 2, False),               # above room type capacity
    (RoomOccupancy(0), 4, False),                     # nobody responsible in the room
], ids=str)
def test_occupancy_fits(room, room_type_max, fits):
    assert occupancy_fits(PLAN, room, room_type_max) is fits


def test_over_age_child_counts_against_max_adults():
    # 3 adults and a 12-year-old with max_child_age 11: four adults for a plan of at most 3.
    (room,) = normalise_occupancy([{"adults": 3, "children": 1, "child_ages": [12]}], 1, 11)
    assert not occupancy_fits(PLAN, room, 4)
    (room,) = normalise_occupancy([{"adults": 3, "children": 1, "child_ages": [11]}], 1, 11)
    assert occupancy_fits(PLAN, room, 4)


def rules(allowed=(), blocked=()):
    return RatePlanRules.build(base_adults=2, max_adults=2, max_children=0, max_occupancy=2,
                               allowed_nationalities=allowed, blocked_nationalities=blocked)


@pytest.mark.parametrize("plan, nationality, allowed", [
    pytest.param(rules(), None, True, id="no rules, no nationality"),
    pytest.param(rules(), "PT", True, id="no rules"),
    pytest.param(rules(allowed=["PT", "ES"]), "PT", True, id="in allow-list"),
    pytest.param(rules(allowed=["PT", "ES"]), "FR", False, id="not in allow-list"),
    pytest.param(rules(allowed=["PT"]), None, False, id="allow-list, nationality missing"),
    pytest.param(rules(blocked=["RU"]), "RU", False, id="blocked"),
    pytest.param(rules(blocked=["RU"]), "PT", True, id="not blocked"),
    pytest.param(rules(blocked=["RU"]), None, False, id="block-list, nationality missing"),
    pytest.param(rules(allowed=["PT", "RU"], blocked=["RU"]), "RU", False,
                 id="blocked wins over allowed"),
    pytest.param(rules(allowed=["pt"]), "Pt", True, id="case-insensitive"),
])
def test_nationality_allowed(plan, nationality, allowed):
    assert nationality_allowed(plan, nationality) is allowed


def test_plan_rules_are_frozen_and_hashable():
    with pytest.raises(AttributeError):
        PLAN.max_adults = 9  # type: ignore[misc]
    assert hash(rules(allowed=["PT"])) == hash(rules(allowed=["PT"]))
