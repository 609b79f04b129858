"""Contract 13.1: once the service has told any client of a write, every request that starts
afterwards reflects it, whichever process answers. Two apps stand for two web processes: the
reader reads from a model of its own, and again from the machine's model host (a real process
of its own, as gunicorn's master starts it: read_model/host.py). Every model catches up by
itself only every 60 s here, so what makes the reader current is the read fence alone
(store/read_fence.py): the reader answers once (its model loaded and caught up), the writer's
write is acknowledged, and the reader answers again at once.

Each acknowledgement of the contract's list has its test: a booking (and its replay), a cancel,
a pushed reservation's new, modify and cancel, an ARI batch applied (the worker's move) and one
reported applied (by its status, with the worker's own move left out), pause and resume, a
catalogue load, a change served by the feed and an event served by the log (each with its
writer's move left out, as when the writer is still between its commit and its move)."""

from __future__ import annotations

import json
import time

import pytest
import redis

from connectivity.ari import jobs
from connectivity.ari.apply import apply_batch
from connectivity.mapping.distribution import set_distribution
from connectivity.store.database import Database
from connectivity.store.read_fence import ReadFence
from connectivity.telemetry import REGISTRY
from connectivity.web.services import services_of

from tests.ari.conftest import redis_client, work  # noqa: F401 (fixtures)
from tests.availability.conftest import API, START, day, stay
from tests.conftest import DEMO_CATALOG
from tests.reservations.conftest import reservation
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates
from tests.support.model_host import model_host

# The reader's model catches up by itself no sooner than this: within a test, never.
BACKSTOP_SECONDS = 60


@pytest.fixture
def writer(make_app):
    return make_app(search_model_refresh_seconds=BACKSTOP_SECONDS).test_client()


@pytest.fixture(scope="module")
def host(settings, tmp_path_factory):
    folder = tmp_path_factory.mktemp("host")
    # Loading inline: a test's first read is the host's, and places the hotel in the reader's
    # worker (mapped.py), so that its reads after the write may be the worker's own.
    with model_host(settings, folder, SEARCH_MODEL_REFRESH_SECONDS=str(BACKSTOP_SECONDS),
                    SEARCH_MODEL_LOADING="inline"):
        yield folder / "host.sock"


@pytest.fixture(params=["own model", "model host"])
def reader_app(request, make_app):
    if request.param == "own model":
        return make_app(search_model_refresh_seconds=BACKSTOP_SECONDS)
    application = make_app(search_model_socket=str(request.getfixturevalue("host")),
                           search_model_refresh_seconds=BACKSTOP_SECONDS)
    # The tables were emptied since the host's last test: it must not answer from before.
    services_of(application).search_model.forget()
    return application


@pytest.fixture
def reader(reader_app):
    return reader_app.test_client()


@pytest.fixture
def keys(issue, catalog):
    return {"pull": {"Authorization": f"Bearer {issue('pull', rate_limit=100000).token}"},
            "push": {"Authorization": f"Bearer {issue('push', signed=False).token}"}}


@pytest.fixture
def lisbon(db, catalog):
    nights = stay_dates(START, 4)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    return nights


@pytest.fixture
def unannounced(services):
    """A Database whose use cases move no fence: a writer between its commit and its move."""
    database = Database(services.database_url, max_size=1)
    yield database
    database.close()


def rates(client, pull) -> dict:
    response = client.post(f"{API}/availability/rates",
                           json={"hotel_code": "ACME-LIS", "room_type_codes": ["ACME-DBL"],
                                 "rate_plan_codes": ["ACME-BAR"], **stay()}, headers=pull)
    assert response.status_code == 200, response.json
    [room_type] = response.json["data"]["room_types"]
    [plan] = room_type["rate_plans"]
    return plan


def first_night(client, pull) -> tuple[int, float]:
    """(available rooms, amount) of the stay's first night, as rates answers it."""
    night = rates(client, pull)["nights"][0]
    return night["available_rooms"], float(night["amount"])


def searched(client, pull) -> dict:
    response = client.post(f"{API}/availability/search",
                           json={"hotel_codes": ["ACME-LIS"], **stay()}, headers=pull)
    assert response.status_code == 200, response.json
    return response.json["data"]


def book(client, pull, reference: str) -> dict:
    body = {"partner_reference": reference, "hotel_code": "ACME-LIS",
            "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
            "check_in": day(0).isoformat(), "check_out": day(2).isoformat(), "rooms": 1,
            "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                        "is_adult": True, "nationality": "PT"}],
            "contact": {"first_name": "Ana", "email": "ana@example.com"},
            "total_amount": "200.00", "currency": "EUR"}
    return client.post(f"{API}/bookings", json=body, headers=pull)


def test_a_booking_and_its_replay_then_its_cancel(writer, reader, keys, lisbon):
    pull = keys["pull"]
    assert first_night(reader, pull) == (5, 100.0)
    assert book(writer, pull, "FRESH-1").status_code == 201
    assert first_night(reader, pull)[0] == 4
    # A replay answers 201 too: the reader still reflects the booking.
    assert book(writer, pull, "FRESH-1").status_code in (200, 201)
    assert first_night(reader, pull)[0] == 4
    cancelled = writer.post(f"{API}/bookings/FRESH-1/cancel", json={}, headers=pull)
    assert cancelled.status_code == 200, cancelled.json
    assert first_night(reader, pull)[0] == 5


def test_a_pushed_reservation_new_modify_and_cancel(writer, reader, keys, lisbon):
    pull, push = keys["pull"], keys["push"]
    assert first_night(reader, pull)[0] == 5
    created = writer.post(f"{API}/reservations", json=reservation("CM-FRESH"), headers=push)
    assert created.status_code == 201, created.json
    assert first_night(reader, pull)[0] == 4
    two_rooms = {"check_in": day(0).isoformat(), "check_out": day(2).isoformat(),
                 "rooms": [{"room_type_code": "ACME-DBL", "quantity": 2, "adults": 2}],
                 "net_amount": "340.00", "net_currency": "EUR",
                 "modified_at": day(-3).isoformat()}
    modified = writer.post(f"{API}/reservations/CM-FRESH/modify", json=two_rooms, headers=push)
    assert modified.status_code == 200, modified.json
    assert first_night(reader, pull)[0] == 3
    cancelled = writer.post(f"{API}/reservations/CM-FRESH/cancel",
                            json={"cancelled_at": day(-2).isoformat()}, headers=push)
    assert cancelled.status_code == 200, cancelled.json
    assert first_night(reader, pull)[0] == 5


def test_an_ari_batch_reported_applied_by_its_status(writer, reader, keys, lisbon, unannounced):
    """Applied by a worker that has not moved the fence yet: the status read moves it."""
    pull, push = keys["pull"], keys["push"]
    assert first_night(reader, pull) == (5, 100.0)
    accepted = writer.put(f"{API}/ari", headers=push, json={"hotel_code": "ACME-LIS", "items": [
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
         "date": day(0).isoformat(), "rate": 120}]})
    assert accepted.status_code == 202, accepted.json
    batch_id = accepted.json["data"]["batch_id"]
    assert apply_batch(unannounced, batch_id) is not None
    status = writer.get(f"{API}/ari/batches/{batch_id}", headers=push)
    assert status.json["data"]["status"] == "applied"
    assert first_night(reader, pull) == (5, 120.0)


def test_an_ari_batch_applied_by_the_worker(writer, reader, keys, lisbon, work):
    """The worker's own move, naming the batch's hotel: a read that follows it reflects the
    batch without any status read."""
    pull, push = keys["pull"], keys["push"]
    assert first_night(reader, pull) == (5, 100.0)
    accepted = writer.put(f"{API}/ari", headers=push, json={"hotel_code": "ACME-LIS", "items": [
        {"room_type_code": "ACME-DBL", "date": day(0).isoformat(), "availability": 2}]})
    assert accepted.status_code == 202, accepted.json
    assert work() == 1
    assert first_night(reader, pull) == (2, 100.0)


def test_pause_resume_and_a_catalogue_load_once_the_command_exits(app, reader, keys, lisbon,
                                                                  tmp_path):
    pull = keys["pull"]
    runner = app.test_cli_runner()
    assert [h["hotel_code"] for h in searched(reader, pull)["hotels"]] == ["ACME-LIS"]
    paused = runner.invoke(args=["distribution", "pause", "--partner", "acme",
                                 "--property", "LIS1"])
    assert paused.exit_code == 0, paused.output
    found = searched(reader, pull)
    assert (found["hotels"], found["unknown_hotel_codes"], found["paused_hotel_codes"]) == (
        [], ["ACME-LIS"], ["ACME-LIS"])
    resumed = runner.invoke(args=["distribution", "resume", "--partner", "acme",
                                  "--property", "LIS1"])
    assert resumed.exit_code == 0, resumed.output
    assert [h["hotel_code"] for h in searched(reader, pull)["hotels"]] == ["ACME-LIS"]

    # A reload that changes BAR's cancellation policy: rates shows the new one.
    assert rates(reader, pull)["cancellation_policy"]["tiers"][0]["within_hours"] == 48
    catalog = json.loads(DEMO_CATALOG.read_text())
    [lisbon_property] = [p for p in catalog["properties"] if p["code"] == "LIS1"]
    [bar] = [p for p in lisbon_property["rate_plans"] if p["code"] == "BAR"]
    bar["cancellation_policy"]["tiers"][0]["within_hours"] = 24
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(catalog))
    loaded = runner.invoke(args=["catalog", "load", str(path)])
    assert loaded.exit_code == 0, loaded.output
    assert rates(reader, pull)["cancellation_policy"]["tiers"][0]["within_hours"] == 24


def test_the_feed_never_runs_ahead_of_rates(reader, keys, lisbon, db, unannounced):
    """A change served by the feed before its writer moved the fence: the page moves it."""
    pull = keys["pull"]
    cursor = reader.get(f"{API}/availability/changes", headers=pull).json["data"]["next_cursor"]
    assert first_night(reader, pull) == (5, 100.0)
    unannounced.run(lambda conn: set_plan_days_on(conn, "135.00"))
    until_served(lambda: [c for c in reader.get(
        f"{API}/availability/changes?cursor={cursor}", headers=pull).json["data"]["changes"]
        if c["kinds"] == ["rate"]])
    assert first_night(reader, pull) == (5, 135.0)


def test_an_event_served_is_reflected(reader, keys, lisbon, unannounced):
    """A pause whose event is served before its command moved the fence: the page moves it."""
    pull = keys["pull"]
    assert [h["hotel_code"] for h in searched(reader, pull)["hotels"]] == ["ACME-LIS"]
    unannounced.run(set_distribution, "acme", "LIS1", False)
    until_served(lambda: [e for e in reader.get(f"{API}/events", headers=pull).json["data"][
        "events"] if e["type"] == "mapping.paused"])
    assert searched(reader, pull)["paused_hotel_codes"] == ["ACME-LIS"]


def test_without_a_move_the_reader_keeps_its_copy(reader, keys, lisbon, unannounced, services):
    """The control: a committed write nobody was told of, and no fence moved, is not yet
    reflected (the reader's model caught up before it and not since), so the tests above
    prove the fence, not a catch-up that happened anyway. Nor is it after a move that names
    another property only (a catch-up then reads that one's changes alone); a move that names
    none makes it read every property's."""
    pull = keys["pull"]
    assert first_night(reader, pull) == (5, 100.0)
    unannounced.run(lambda conn: set_plan_days_on(conn, "140.00"))
    assert first_night(reader, pull) == (5, 100.0)
    client = redis.Redis.from_url(services.redis_url)
    fence = ReadFence(client, services.redis_prefix)
    with unannounced.connection() as conn:
        other = conn.execute("SELECT id FROM properties WHERE code <> 'LIS1'").fetchone()["id"]
    fence.move([other])
    assert first_night(reader, pull) == (5, 100.0)
    fence.move()
    assert first_night(reader, pull) == (5, 140.0)
    client.close()


def test_a_move_naming_other_hotels_leaves_nothing_to_wait_for(make_app, keys, lisbon,
                                                                services):
    """A read whose hotels no move named since the model's last catch-up answers from the copy
    at once (catching_up.py `refresh`, `touching`): every write to them acknowledged before it
    was counted by then. A move that names its hotel makes it catch up first."""
    pull = keys["pull"]
    reader = make_app(search_model_refresh_seconds=BACKSTOP_SECONDS).test_client()
    assert first_night(reader, pull) == (5, 100.0)
    client = redis.Redis.from_url(services.redis_url)
    fence = ReadFence(client, services.redis_prefix)
    with services_of(reader.application).db.connection() as conn:
        ids = {r["code"]: r["id"] for r in conn.execute("SELECT code, id FROM properties")}
    caught_up = catch_ups()
    fence.move([ids["OPO1"]])
    assert first_night(reader, pull) == (5, 100.0)
    searched(reader, pull)
    assert catch_ups() == caught_up
    fence.move([ids["LIS1"]])
    assert first_night(reader, pull) == (5, 100.0)
    assert catch_ups() == caught_up + 1
    client.close()


def catch_ups() -> float:
    return REGISTRY.get_sample_value("pcs_search_model_catch_up_seconds_count")


def until_served(read_page) -> list:
    """Reads until the page serves what is looked for: a log serves a commit once every
    transaction older than it has ended, anywhere on the server (docs/operations.md 3.3)."""
    deadline = time.monotonic() + 30
    while not (page := read_page()):
        assert time.monotonic() < deadline, "nothing served within 30 s"
        time.sleep(0.05)
    return page


def set_plan_days_on(conn, rate: str) -> None:
    conn.execute(
        "UPDATE rate_plan_days d SET rate = %s FROM properties p, rate_plans rp "
        "WHERE p.id = d.property_id AND rp.id = d.rate_plan_id AND p.code = 'LIS1' "
        "AND rp.code = 'BAR' AND d.date = %s", (rate, day(0)))


@pytest.fixture(autouse=True)
def _jobs_database(db):
    jobs.use_database(db)
    yield
    jobs.use_database(None)


def test_two_apps_are_two_models(writer, reader_app, app):
    assert services_of(reader_app).search_model is not services_of(app).search_model
