"""`stay_nights`: the one rule turning a stay into its nights, used by every area."""

from __future__ import annotations

import datetime as dt

import pytest

from connectivity.pricing.stay_nights import stay_nights

D = dt.date


@pytest.mark.parametrize("check_in, check_out, nights", [
    (D(2027, 3, 10), D(2027, 3, 11), [D(2027, 3, 10)]),
    (D(2027, 2, 27), D(2027, 3, 2), [D(2027, 2, 27), D(2027, 2, 28), D(2027, 3, 1)]),
    (D(2028, 2, 28), D(2028, 3, 1), [D(2028, 2, 28), D(2028, 2, 29)]),  # leap day
    (D(2027, 12, 31), D(2028, 1, 1), [D(2027, 12, 31)]),
    (D(2027, 3, 10), D(2027, 3, 10), []),  # check-out is not a night
    (D(2027, 3, 10), D(2027, 3, 9), []),
])
def test_the_nights_run_from_check_in_up_to_not_including_check_out(check_in, check_out, nights):
    assert stay_nights(check_in, check_out) == nights
