"""Rates read by a web worker from the model host's arrays, mapped (read_model/mapped.py),
where the host's directory says each hotel lies (directory.py). In one process first: a model
whose arrays are memfd segments and that keeps a directory, a MappedRates given copies of their
descriptors as a worker receives them, and what makes it leave a read to the host: a hotel not
placed, a later token a move named it under, a write under way, a layout it does not map, a
host that stopped catching up. Then through a real host process, as a gunicorn worker reads
it: every hotel the host holds is read in the worker, and a write acknowledged is reflected at
once (contract 13.1)."""

from __future__ import annotations

import datetime as dt
import os
import time

import numpy as np
import pytest
import redis

from connectivity.availability import arena
from connectivity.availability.read_model import RATES, SearchModel
from connectivity.availability.read_model.directory import (CAUGHT_UP, GENERATION, SEQ,
                                                            Directory)
from connectivity.availability.read_model.mapped import MappedRates
from connectivity.availability.read_model.shared_arrays import Segments
from connectivity.store.read_fence import ReadFence
from connectivity.web.services import services_of

from tests.availability.conftest import API, START, day, stay
from tests.availability.test_search_model import _caller
from tests.support.ari_days import set_plan_days, stay_dates
from tests.support.model_host import model_host

CHECK_IN, CHECK_OUT = START, START + dt.timedelta(days=2)
TOKEN = b"feedc0de.7"


def mapped_count() -> float:
    return RATES.labels("mapped")._value.get()


@pytest.fixture
def segments():
    """Arrays made as the model host makes them, for the model the test builds."""
    made = Segments()
    arena.share_with(made)
    yield made
    arena.share_with(arena.Allocation())


@pytest.fixture
def directory(segments) -> Directory:
    return Directory(segments)


@pytest.fixture
def model(app, directory, lisbon_ari) -> SearchModel:
    return SearchModel(services_of(app).reads, background=False, refresh_seconds=60,
                       directory=directory)


class Worker:
    """A worker's MappedRates, fed as remote.HostedModel feeds it, with a fence of its own."""

    def __init__(self, model: SearchModel, segments: Segments, directory: Directory, caller,
                 untouched=False):
        self.model, self.segments, self.directory = model, segments, directory
        self.caller = caller
        self.mapped = MappedRates(lambda since, asked, pid: untouched, refresh_seconds=60)

    def map_layout(self) -> None:
        layout = self.directory.layout
        found, sizes, fds = self.segments.descriptors(layout.segments())
        self.mapped.segments.add(found, sizes, [os.dup(fd) for fd in fds])  # as received
        assert self.mapped.adopt(layout)

    def view(self, token: bytes = TOKEN, code: str = "ACME-LIS", check_in=CHECK_IN,
             check_out=CHECK_OUT, rooms=None, plans=None):
        return self.mapped.view(self.caller.partner_id, self.caller.environment, code,
                                check_in, check_out, token, rooms, plans)

    def host_view(self, token: bytes = TOKEN):
        return self.model.rates_view(self.caller.partner_id, self.caller.environment,
                                     "ACME-LIS", CHECK_IN, CHECK_OUT, token)


def same(a, b) -> bool:
    return (a.offers == b.offers and a.code == b.code and a.currency == b.currency
            and all(np.array_equal(x, y) for x, y in zip(a.days, b.days)))


def test_a_held_hotel_is_read_from_the_arrays_as_the_host_reads_it(model, segments,
                                                                   directory, db):
    worker = Worker(model, segments, directory, _caller(db))
    assert worker.view() is None  # nothing mapped yet: the host answers
    host = worker.host_view()     # held now (loaded inline), caught up under TOKEN
    worker.map_layout()
    before = mapped_count()
    mine = worker.view()
    assert mapped_count() == before + 1
    assert same(mine, host)
    # Narrowed to codes as the host narrows them.
    narrowed = worker.view(rooms=["ACME-DBL"], plans=["ACME-NRF"])
    assert [o["rate_plan_code"] for o in narrowed.offers] == ["ACME-NRF"]
    # A stay outside the held days, a code not held, a later token a move may have named it
    # under: the host. An earlier count of the same epoch is covered.
    assert worker.view(check_in=START + dt.timedelta(days=500),
                       check_out=START + dt.timedelta(days=502)) is None
    assert worker.view(code="ACME-OPO") is None
    assert worker.view(b"feedc0de.8") is None
    assert worker.view(b"feedc0de.6") is not None


def test_a_later_token_is_read_when_no_move_named_the_hotel(model, segments, directory, db):
    worker = Worker(model, segments, directory, _caller(db), untouched=True)
    worker.host_view()
    worker.map_layout()
    assert worker.view(b"feedc0de.9") is not None


def test_a_hotel_moved_to_another_slot_is_read_where_it_lies_now(model, segments, directory,
                                                                  db):
    worker = Worker(model, segments, directory, _caller(db))
    worker.host_view()
    worker.map_layout()
    # More distinct prices than its palettes have room for: the catch-up moves it.
    for at, night in enumerate(stay_dates(START, 4)):
        set_plan_days(db, "LIS1", "DBL", "BAR", [night], rate=f"{101 + at}.00")
    written = directory._used
    model.refresh(b"feedc0de.8")
    assert directory._used == written  # moved, its codes kept their catalogues' pickles
    host = worker.host_view(b"feedc0de.8")
    assert [int(m) for m in host.days[0][0, :2, 0] // 10**6] == [101, 102]
    if worker.mapped.behind():
        worker.map_layout()
    assert same(worker.view(b"feedc0de.8"), host)


def test_nothing_is_read_once_the_model_dropped_it(model, segments, directory, db):
    worker = Worker(model, segments, directory, _caller(db))
    worker.host_view()
    worker.map_layout()
    model.forget()
    assert worker.view() is None


def test_a_write_under_way_a_new_layout_or_a_host_that_stopped_catching_up_leave_it_to_the_host(
        model, segments, directory, db):
    worker = Worker(model, segments, directory, _caller(db))
    worker.host_view()
    worker.map_layout()
    header = directory._header
    for counter in (header[SEQ:SEQ + 1], model._arenas.counts):
        counter[0] += 1  # odd: a write under way
        assert worker.view() is None
        counter[0] += 1
        assert worker.view() is not None
    header[GENERATION] += 1  # arrays laid out anew: not read until mapped again
    assert worker.view() is None and worker.mapped.behind()
    header[GENERATION] -= 1
    header[CAUGHT_UP] = time.time_ns() - 91 * 10**9  # 1.5 periods of 60 s ago and more
    assert worker.view() is None
    assert worker.mapped.behind()  # its host may have died: the layout asked for again


def test_a_worker_maps_the_layouts_segments_and_no_others(model, segments, directory, db):
    worker = Worker(model, segments, directory, _caller(db))
    worker.host_view()
    worker.map_layout()
    first = set(directory.layout.segments())
    assert len(worker.mapped.segments) == len(first)
    model.forget()
    worker.host_view()  # loaded again: new arenas
    worker.map_layout()
    assert len(worker.mapped.segments) == len(directory.layout.segments())
    assert set(directory.layout.segments()) != first


# --- through the model host's process ----------------------------------------------------


@pytest.fixture(scope="module")
def host(settings, tmp_path_factory):
    folder = tmp_path_factory.mktemp("mapped-host")
    with model_host(settings, folder, SEARCH_MODEL_REFRESH_SECONDS="60"):
        yield folder / "host.sock"


@pytest.fixture
def reader(host, make_app):
    application = make_app(search_model_socket=str(host), search_model_refresh_seconds=60)
    services_of(application).search_model.forget()  # the tables were emptied since
    return application.test_client()


def first_night(client, pull) -> tuple[int, float]:
    response = client.post(f"{API}/availability/rates",
                           json={"hotel_code": "ACME-LIS", "room_type_codes": ["ACME-DBL"],
                                 "rate_plan_codes": ["ACME-BAR"], **stay()}, headers=pull)
    assert response.status_code == 200, response.json
    night = response.json["data"]["room_types"][0]["rate_plans"][0]["nights"][0]
    return night["available_rooms"], float(night["amount"])


def test_through_the_host_a_placed_hotel_is_read_in_the_worker_and_follows_writes(
        reader, client, issue, lisbon_ari, services, db):
    pull = {"Authorization": f"Bearer {issue('pull', rate_limit=100000).token}"}
    assert first_night(reader, pull) == (5, 100.0)  # the statements: the host loads it
    assert first_night(reader, pull) == (5, 100.0)  # the host answers: the layout mapped
    before = mapped_count()
    assert first_night(reader, pull) == (5, 100.0)
    assert mapped_count() == before + 1
    fence = ReadFence(redis.Redis.from_url(services.redis_url), services.redis_prefix)
    with db.connection() as conn:
        other = conn.execute("SELECT id FROM properties WHERE code <> 'LIS1'").fetchone()["id"]
    fence.move([other])  # another hotel's write: still read in the worker
    assert first_night(reader, pull) == (5, 100.0)
    assert mapped_count() == before + 2
    booked = client.post(f"{API}/bookings", headers=pull, json={
        "partner_reference": "MAPPED-1", "hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL",
        "rate_plan_code": "ACME-BAR", "check_in": day(0).isoformat(),
        "check_out": day(2).isoformat(), "rooms": 1,
        "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                    "is_adult": True, "nationality": "PT"}],
        "contact": {"first_name": "Ana", "email": "ana@example.com"},
        "total_amount": "160.00", "currency": "EUR"})
    assert booked.status_code == 201, booked.json
    assert first_night(reader, pull) == (4, 100.0)  # named: the host, caught up
    assert mapped_count() == before + 2
    assert first_night(reader, pull) == (4, 100.0)  # the host's token covers it: the worker
    assert mapped_count() == before + 3
