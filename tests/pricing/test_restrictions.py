"""The stricter of room-type and rate-plan restrictions applies."""

from __future__ import annotations

import pytest

from connectivity.pricing import NightRestrictions as R
from connectivity.pricing import effective

OPEN = R(closed=False, min_stay=None, max_stay=None, closed_to_arrival=False,
         closed_to_departure=False)


@pytest.mark.parametrize("room_type, rate_plan, expected", [
    pytest.param(None, None, OPEN, id="nothing set is open"),
    pytest.param(R(), R(), OPEN, id="empty levels are open"),
    pytest.param(R(closed=True), None, R(True, None, None, False, False), id="room type closed"),
    pytest.param(None, R(closed=True), R(True, None, None, False, False), id="rate plan closed"),
    pytest.param(R(closed=False), R(closed=True), R(True, None, None, False, False),
                 id="closed if either"),
    pytest.param(R(min_stay=2), R(min_stay=3), R(False, 3, None, False, False),
                 id="min_stay the larger"),
    pytest.param(R(min_stay=4), R(min_stay=3), R(False, 4, None, False, False),
                 id="min_stay the larger, other order"),
    pytest.param(R(min_stay=2), None, R(False, 2, None, False, False), id="min_stay one level"),
    pytest.param(R(max_stay=7), R(max_stay=5), R(False, None, 5, False, False),
                 id="max_stay the smaller"),
    pytest.param(None, R(max_stay=5), R(False, None, 5, False, False), id="max_stay one level"),
    pytest.param(R(closed_to_arrival=True), R(closed_to_arrival=False),
                 R(False, None, None, True, False), id="CTA if either"),
    pytest.param(R(closed_to_departure=False), R(closed_to_departure=True),
                 R(False, None, None, False, True), id="CTD if either"),
    pytest.param(R(False, 2, 10, False, True), R(False, 3, 7, True, False),
                 R(False, 3, 7, True, True), id="all combined"),
])
def test_effective(room_type, rate_plan, expected):
    assert effective(room_type, rate_plan) == expected


def test_effective_is_symmetric():
    a, b = R(True, 2, 9, False, True), R(False, 5, 4, True, None)
    assert effective(a, b) == effective(b, a)
