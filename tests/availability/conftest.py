"""Shared by the discovery tests: a pull key's headers, a stay a few days ahead, and ARI of
the demo catalogue (LIS1: DBL and SGL, plans BAR and NRF; OPO1: TWN, plan BAR)."""

from __future__ import annotations

import datetime as dt

import pytest

from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

API = "/api/connectivity/v1"
# Far enough ahead to be "today or later" in every timezone.
START = dt.date.today() + dt.timedelta(days=5)


def day(offset: int) -> dt.date:
    return START + dt.timedelta(days=offset)


def stay(nights: int = 2, offset: int = 0, **fields) -> dict:
    return {"check_in": day(offset).isoformat(), "check_out": day(offset + nights).isoformat(),
            "rooms": 1, "occupancy": [{"adults": 2}], **fields}


@pytest.fixture
def pull(issue, catalog):
    return {"Authorization": f"Bearer {issue('pull').token}"}


@pytest.fixture
def lisbon_ari(db, catalog):
    """Four nights from START: DBL 5 rooms, SGL 3 rooms; BAR and NRF priced on DBL, BAR on
    SGL; OPO1 nothing at all."""
    nights = stay_dates(START, 4)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_room_days(db, "LIS1", "SGL", nights, available=3)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00", single_rate="80.00",
                  extra_adult_rate="30.00", extra_child_rate="15.00")
    set_plan_days(db, "LIS1", "DBL", "NRF", nights, rate="90.00", extra_child_rate="10.00")
    set_plan_days(db, "LIS1", "SGL", "BAR", nights, rate="70.00", single_rate="60.00")
    return nights
