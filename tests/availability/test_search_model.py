"""Search's read model stays current: what the day tables, a pause or a restart change shows in
the next search (the test app catches up before every search), and a model that may skip the
catch-up for a while (SEARCH_MODEL_REFRESH_SECONDS) never keeps a stale answer past that
while. The answers themselves are held to the reference by test_search_matches_rates.py and
test_search.py, which run with the model on."""

from __future__ import annotations

import dataclasses
import threading
import time
import datetime as dt
from decimal import Decimal

import numpy as np
import psycopg

from connectivity.auth.authenticate import Caller
from connectivity.availability.search import search
from connectivity.availability.read_model import HOTELS, SearchModel
from connectivity.availability.read_model import catching_up as catching
from connectivity.web.services import services_of
from connectivity.store.read_fence import FenceReading

from tests.support.ari_days import _ids, set_plan_days, set_room_days
from tests.availability.conftest import API, day, stay

SEARCH = f"{API}/availability/search"


def lowest(client, headers, **fields):
    response = client.post(SEARCH, json={"hotel_codes": ["ACME-LIS"], **stay(**fields)},
                           headers=headers)
    assert response.status_code == 200, response.json
    [hotel] = response.json["data"]["hotels"] or [None]
    return hotel and hotel["lowest_total_amount"]


def from_model() -> float:
    return HOTELS.labels("model")._value.get()


def test_the_model_answers_and_a_committed_ari_change_shows_in_the_next_search(
        client, pull, lisbon_ari, db):
    before = from_model()
    assert lowest(client, pull) == Decimal("180")      # NRF 90 x 2
    assert from_model() == before + 1                    # answered by the model, not the statement
    set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="50.00")
    assert lowest(client, pull) == Decimal("140")      # 90 + 50


def test_a_booking_like_decrement_and_a_pause_show_in_the_next_search(app, client, pull,
                                                                      lisbon_ari, db):
    assert lowest(client, pull) == Decimal("180")
    # The last DBL room of a night gone (as a booking's decrement leaves it): SGL cannot hold
    # two, so nothing is left.
    set_room_days(db, "LIS1", "DBL", [day(0)], available=0)
    assert lowest(client, pull) is None
    paused = app.test_cli_runner().invoke(
        args=["distribution", "pause", "--partner", "acme", "--property", "LIS1"])
    assert paused.exit_code == 0, paused.output
    response = client.post(SEARCH, json={"hotel_codes": ["ACME-LIS"], **stay()}, headers=pull)
    assert response.json["data"]["hotels"] == []
    assert response.json["data"]["unknown_hotel_codes"] == ["ACME-LIS"]
    assert response.json["data"]["paused_hotel_codes"] == ["ACME-LIS"]


def test_a_change_shows_at_once_while_an_older_transaction_holds_the_horizon_below_it(
        client, pull, lisbon_ari, db, services):
    """The model applies a committed change as soon as it reads it, also while a transaction
    that began before it still runs on the same node (the feed waits for that one; search does
    not), and keeps it once that transaction ends and the horizon passes it."""
    assert lowest(client, pull) == Decimal("180")
    with db.connection() as conn:
        lis1 = conn.execute("SELECT id FROM properties WHERE code = 'LIS1'").fetchone()["id"]
    older = psycopg.connect(services.database_url)
    try:
        # A write of its own holds the horizon of LIS1's node (on Citus: its worker) below
        # every transaction that begins after it.
        older.execute("UPDATE rate_plan_days SET rate = rate WHERE property_id = %s "
                      "AND date = %s", (lis1, day(3)))
        set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="50.00")
        assert lowest(client, pull) == Decimal("140")
        set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="60.00")
        assert lowest(client, pull) == Decimal("150")
    finally:
        older.rollback()
        older.close()
    assert lowest(client, pull) == Decimal("150")


def test_a_model_that_skips_catch_ups_keeps_a_stale_answer_no_longer_than_it_may(
        app, client, pull, lisbon_ari, db):
    """SEARCH_MODEL_REFRESH_SECONDS bounds staleness: a search after that while sees the change
    (the model's clock is moved rather than waited for)."""
    now = [1000.0]
    model = SearchModel(services_of(app).reads, background=False, refresh_seconds=0.5,
                        clock=lambda: now[0])
    caller = _caller(db)
    request = {"hotel_codes": ["ACME-LIS"], "check_in": day(0), "check_out": day(2), "rooms": 1,
               "occupancy": [{"adults": 2}]}

    def answer():
        [hotel] = search(services_of(app).reads, caller, request,
                         dt.datetime.now(dt.timezone.utc), model)["hotels"]
        return hotel["lowest_total_amount"]

    assert answer() == Decimal("180.00")
    set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="50.00")
    now[0] += 0.2
    assert answer() in (Decimal("180.00"), Decimal("140.00"))  # within the while: either
    now[0] += 0.31
    assert answer() == Decimal("140.00")                        # past it: never the old one


def test_a_new_process_and_a_database_restart_lose_nothing(app, client, pull, lisbon_ari, db):
    """A new web process starts empty and loads what is current; after PostgreSQL dropped every
    connection (as a restart does) the model catches up through a new one."""
    assert lowest(client, pull) == Decimal("180")
    # From a connection of its own, as a restart ends every session of the service's pools: on
    # Citus a pooled session that survived would keep its cached connection to the coordinator's
    # own node, ended too, and fail its next statement that uses it ("failure on connection
    # marked as essential": the next test's, in the Citus pass).
    with psycopg.connect(services_of(app).settings.database_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = current_database() AND pid <> pg_backend_pid()")
    set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="50.00")
    assert lowest(client, pull) == Decimal("140")
    fresh = SearchModel(services_of(app).reads, background=False)
    caller = _caller(db)
    [hotel] = search(services_of(app).reads, caller, {
        "hotel_codes": ["ACME-LIS"], "check_in": day(0), "check_out": day(2), "rooms": 1,
        "occupancy": [{"adults": 2}]}, dt.datetime.now(dt.timezone.utc), fresh)["hotels"]
    assert hotel["lowest_total_amount"] == Decimal("140.00")
    assert fresh.held() == 1


def _caller(db):
    """The caller the pull key stands for: the partner mapping ACME-LIS, in its environment."""
    with db.connection() as conn:
        row = conn.execute("SELECT partner_id, environment FROM partner_properties "
                           "WHERE hotel_code = 'ACME-LIS'").fetchone()
        partner_id, environment = row["partner_id"], row["environment"]
    values = {f.name: None for f in dataclasses.fields(Caller)}
    return Caller(**{**values, "partner_id": partner_id, "environment": environment})


def test_a_bounded_model_holds_no_more_and_the_statement_answers_the_rest(app, lisbon_ari, db):
    bounded = SearchModel(services_of(app).reads, background=False, max_properties=1)
    caller = _caller(db)
    request = {"hotel_codes": ["ACME-LIS", "ACME-OPO"], "check_in": day(0),
               "check_out": day(2), "rooms": 1, "occupancy": [{"adults": 2}]}
    now = dt.datetime.now(dt.timezone.utc)
    answer = search(services_of(app).reads, caller, request, now, bounded)
    assert bounded.held() == 1
    assert answer == search(services_of(app).reads, caller, request, now, None)
    assert [h["hotel_code"] for h in answer["hotels"]] == ["ACME-LIS", "ACME-OPO"]


def test_a_price_the_model_cannot_hold_exactly_is_searched_by_the_statement(app, lisbon_ari,
                                                                             db):
    """Seven decimals do not fit integer millionths: the hotel goes to search.sql, whose
    answer is the model's answer."""
    model = SearchModel(services_of(app).reads, background=False)
    caller = _caller(db)
    request = {"hotel_codes": ["ACME-LIS"], "check_in": day(0), "check_out": day(2),
               "rooms": 1, "occupancy": [{"adults": 2}]}
    now = dt.datetime.now(dt.timezone.utc)
    search(services_of(app).reads, caller, request, now, model)
    set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="50.1234567")
    before = HOTELS.labels("reference")._value.get()
    answer = search(services_of(app).reads, caller, request, now, model)
    assert HOTELS.labels("reference")._value.get() == before + 1
    assert answer == search(services_of(app).reads, caller, request, now, None)
    assert answer["hotels"][0]["lowest_total_amount"] == Decimal("140.12")


def test_days_updated_past_their_palettes_room_move_the_hotel_and_it_answers_the_same(
        app, lisbon_ari, db):
    """A loaded hotel whose price then changes every day for 300 days: its palettes overflow
    (one byte indexes 256 values), the update moves it to two-byte indexes, and every stay is
    still answered as search.sql answers it."""
    model = SearchModel(services_of(app).reads, background=False)
    caller = _caller(db)
    now = dt.datetime.now(dt.timezone.utc)

    def request(offset):
        return {"hotel_codes": ["ACME-LIS"], "check_in": day(offset),
                "check_out": day(offset + 3), "rooms": 1, "occupancy": [{"adults": 2}]}
    search(services_of(app).reads, caller, request(0), now, model)
    [(_, grid)] = [(pid, g) for pid, g in model._grids.items() if g.mappings]
    assert grid.arena.dtype == np.uint8

    def write(conn):
        property_id, room_type_id, rate_plan_id = _ids(conn, "LIS1", "DBL", "NRF")
        conn.execute(
            "INSERT INTO rate_plan_days (property_id, room_type_id, rate_plan_id, date, rate) "
            "SELECT %s, %s, %s, %s::date + i, 60 + i / 100.0 FROM generate_series(0, 299) i "
            "ON CONFLICT (property_id, room_type_id, rate_plan_id, date) "
            "DO UPDATE SET rate = EXCLUDED.rate", (property_id, room_type_id, rate_plan_id,
                                                    day(0)))
    db.run(write)
    set_room_days(db, "LIS1", "DBL", [day(i) for i in range(300)], available=5)
    for offset in (0, 1, 150, 296):
        answer = search(services_of(app).reads, caller, request(offset), now, model)
        assert answer == search(services_of(app).reads, caller, request(offset), now, None)
        assert answer["hotels"][0]["available"]
    assert model._grids[grid.property_id].arena.dtype == np.uint16


def test_one_catch_up_of_hotels_changed_on_different_days_shows_each_hotels_days(
        app, lisbon_ari, db):
    """Two hotels changed on days far apart, read back by one catch-up: each hotel's changed
    days are read whole (model_days bounds the read by the earliest and latest day of all the
    hotels' windows, for Citus's shards), and both answer as search.sql does."""
    model = SearchModel(services_of(app).reads, background=False)
    caller = _caller(db)
    now = dt.datetime.now(dt.timezone.utc)
    set_room_days(db, "OPO1", "TWN", [day(i) for i in range(12)], available=4)
    set_plan_days(db, "OPO1", "TWN", "BAR", [day(i) for i in range(12)], rate="70.00")

    def request(code, offset):
        return {"hotel_codes": [code], "check_in": day(offset), "check_out": day(offset + 2),
                "rooms": 1, "occupancy": [{"adults": 2}]}
    asked = [("ACME-LIS", 0), ("ACME-OPO", 9)]
    for code, offset in asked:
        search(services_of(app).reads, caller, request(code, offset), now, model)
    # One change each, nine days apart, both committed before the next catch-up.
    set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="50.00")
    set_plan_days(db, "OPO1", "TWN", "BAR", [day(10)], rate="40.00")
    answers = [search(services_of(app).reads, caller, request(code, offset), now, model)
               for code, offset in asked]
    assert [a["hotels"][0]["lowest_total_amount"] for a in answers] == [
        Decimal("140"), Decimal("110")]
    assert answers == [search(services_of(app).reads, caller, request(code, offset), now, None)
                       for code, offset in asked]


def _read_with(model: SearchModel, meanwhile) -> list:
    """Make `meanwhile` happen once, right after the model's loading read a batch (outside its
    lock, loading.py) and before it holds it."""
    read, done = model._read_properties, []

    def read_then(conn, property_ids):
        copy = read(conn, property_ids)
        if not done:
            done.append(property_ids)
            meanwhile()
        return copy
    model._read_properties = read_then
    return done


def test_a_change_caught_up_while_its_hotel_is_being_read_is_read_again(app, lisbon_ari, db):
    """A catch-up (a search's, between a load's read and its hold) applies a change to a hotel
    whose copy was read before it: that copy is not held but read again. Held, it would keep
    the old price for good, the model's position being past the change."""
    model = SearchModel(services_of(app).reads, background=False, load_connections=2)
    caller = _caller(db)
    request = {"hotel_codes": ["ACME-LIS"], "check_in": day(0), "check_out": day(2),
               "rooms": 1, "occupancy": [{"adults": 2}]}
    now = dt.datetime.now(dt.timezone.utc)

    def change_and_catch_up():
        set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="50.00")
        model.refresh(None)
    done = _read_with(model, change_and_catch_up)
    [hotel] = search(services_of(app).reads, caller, request, now, model)["hotels"]
    assert done and model.held() == 1
    assert hotel["lowest_total_amount"] == Decimal("140.00")
    [again] = search(services_of(app).reads, caller, request, now, model)["hotels"]
    assert again["lowest_total_amount"] == Decimal("140.00")


def test_a_load_under_way_when_the_model_is_emptied_holds_nothing_it_read(app, lisbon_ari, db):
    """forget() (a restored database) while a batch is being read: what was read before it is
    not held; the statement answers, and the next search loads the hotel anew."""
    model = SearchModel(services_of(app).reads, background=False, load_connections=2)
    caller = _caller(db)
    request = {"hotel_codes": ["ACME-LIS"], "check_in": day(0), "check_out": day(2),
               "rooms": 1, "occupancy": [{"adults": 2}]}
    now = dt.datetime.now(dt.timezone.utc)
    done = _read_with(model, model.forget)
    answer = search(services_of(app).reads, caller, request, now, model)
    assert done and model.held() == 0
    assert answer == search(services_of(app).reads, caller, request, now, None)
    search(services_of(app).reads, caller, request, now, model)
    assert model.held() == 1


def _counting_catch_ups(model: SearchModel, hold: bytes | None = None):
    """The tokens the model's catch-ups run under; the one under `hold` waits for the event
    returned (with the one set when it started)."""
    calls, started, release = [], threading.Event(), threading.Event()
    inner = model._catch_up_alone

    def counted(fence):
        calls.append(fence)
        if fence == hold:
            started.set()
            release.wait(10)
        inner(fence)
    model._catch_up_alone = counted
    return calls, started, release


def test_a_token_counted_no_further_than_the_last_catch_ups_needs_no_catch_up(app, lisbon_ari):
    model = SearchModel(services_of(app).reads, background=False, refresh_seconds=60)
    calls, _, _ = _counting_catch_ups(model)
    for token in (b"ab.5", b"ab.5", b"ab.3", b"ab.6/0/10", b"ab.6", b"cd.1", b"ab.7"):
        model.refresh(token)
    assert calls == [b"ab.5", b"ab.6/0/10", b"cd.1", b"ab.7"]


def test_requests_waiting_on_a_catch_up_that_covers_them_need_no_other(app, lisbon_ari):
    """Three requests come while a catch-up begun under count 5 runs: those that read 4 and 5
    are covered by it once it ends; the one that read 6 needs one more, not one each."""
    model = SearchModel(services_of(app).reads, background=False, refresh_seconds=60)
    model.refresh(b"ab.1")
    calls, started, release = _counting_catch_ups(model, hold=b"ab.5")
    first = threading.Thread(target=model.refresh, args=(b"ab.5",))
    first.start()
    assert started.wait(10)
    waiting = [threading.Thread(target=model.refresh, args=(token,))
               for token in (b"ab.4", b"ab.5", b"ab.6")]
    for thread in waiting:
        thread.start()
    time.sleep(0.2)  # all three on the model's lock
    release.set()
    for thread in (first, *waiting):
        thread.join(10)
    assert calls == [b"ab.5", b"ab.6"]


def test_reads_of_untouched_hotels_read_the_fence_once_per_move(app, lisbon_ari):
    """A read that holds its hotels asks the fence what moved since the last catch-up; the
    requests that carry a token the answer already covers reuse it (under frequent writes many
    carry the same token), and one that carries a later token asks again."""
    fence = {"token": b"ab.5", "changed": frozenset()}
    asked = []

    def current(since):
        asked.append(since)
        return FenceReading(fence["token"], fence["changed"])
    model = SearchModel(services_of(app).reads, background=False, refresh_seconds=60,
                        current_fence=current)
    calls, _, _ = _counting_catch_ups(model)
    assert model.refresh(b"ab.5")  # the first catch-up: under ab.5
    lisbon, other = 1, 2
    fence.update(token=b"ab.7", changed=frozenset({other}))
    assert model.refresh(b"ab.6", touching={lisbon}) is False  # asks: ab.7, other
    assert model.refresh(b"ab.7", touching={lisbon}) is False  # ab.7 is covered: no asking
    assert model.refresh(b"ab.6", touching={lisbon}) is False
    fence.update(token=b"ab.8", changed=frozenset({other, lisbon}))
    assert model.refresh(b"ab.8", touching={lisbon}) is True  # asks, finds it named: waits
    assert calls == [b"ab.5", b"ab.8"]
    # the first catch-up's, one for ab.6 and ab.7, one for ab.8, its catch-up's
    assert asked == [None, b"ab.5", b"ab.5", b"ab.5"]


def test_a_catch_up_covers_the_token_it_read_as_it_began(app, lisbon_ari, monkeypatch):
    """A catch-up records the fence's token as it reads it itself, before its first database
    read, not the older one of the request that began it: requests that read a token up to that
    one need no catch-up of their own."""
    order = []
    horizons = catching.horizons_and_next

    def current(since):
        order.append("token")
        return FenceReading(b"ab.9", None)

    def read_horizons(conn):
        order.append("horizons")
        return horizons(conn)
    monkeypatch.setattr(catching, "horizons_and_next", read_horizons)
    model = SearchModel(services_of(app).reads, background=False, refresh_seconds=60,
                        current_fence=current)
    calls, _, _ = _counting_catch_ups(model)
    for token in (b"ab.5", b"ab.7", b"ab.9", b"ab.10"):
        model.refresh(token)
    assert calls == [b"ab.5", b"ab.10"]
    assert order[:2] == ["token", "horizons"]
