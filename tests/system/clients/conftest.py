"""The Python client (clients/python) against the real service: imported from its source tree,
as `pip install ./clients/python` would install it, talking HTTP to the live test app."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from connectivity.operator.demo_ari import seed_demo_ari

CLIENT_SOURCE = Path(__file__).resolve().parents[3] / "clients" / "python" / "src"
sys.path.insert(0, str(CLIENT_SOURCE))

GUESTS = [{"room_number": 1, "first_name": "Ana", "last_name": "Silva", "is_adult": True},
          {"room_number": 1, "first_name": "Rui", "last_name": "Silva", "is_adult": True}]
CONTACT = {"first_name": "Ana", "email": "ana@example.com"}


def next_week(nights: int = 2) -> tuple[dt.date, dt.date]:
    check_in = dt.datetime.now(ZoneInfo("Europe/Lisbon")).date() + dt.timedelta(days=7)
    return check_in, check_in + dt.timedelta(days=nights)


@pytest.fixture
def demo(db, catalog):
    db.run(seed_demo_ari, dt.datetime.now(dt.timezone.utc))


class Sleeps(list):
    """A `sleep` for the client that records the waits instead of waiting them."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)
