"""Rates answered from search's read model (availability.rates `_from_model`): the model answers,
and what the day tables, a pause or a catalogue load change shows in the next request (the test
app catches up before every request), through a database restart and in a new process; a model
that may skip the catch-up for a while (SEARCH_MODEL_REFRESH_SECONDS) never keeps a stale answer
past that while. The answers themselves are held to the statements' fast path and to the
reference by test_rates_grid.py's endpoint test, three ways."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import psycopg

from connectivity.availability import rates as rates_module
from connectivity.availability.read_model import RATES, SearchModel
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.web.services import services_of

from tests.availability.conftest import API, day, stay
from tests.availability.test_search_model import _caller
from tests.conftest import DEMO_CATALOG
from tests.support.ari_days import set_plan_days, set_room_days

RATES_PATH = f"{API}/availability/rates"


def rates(client, headers, status=200, **fields) -> dict:
    response = client.post(RATES_PATH, json={"hotel_code": "ACME-LIS", **stay(**fields)},
                           headers=headers)
    assert response.status_code == status, response.json
    return response.json["data"] if status == 200 else response.json["error"]


def offer(data: dict, room_type: str, rate_plan: str) -> dict:
    [found] = [rp for rt in data["room_types"] if rt["room_type_code"] == room_type
               for rp in rt["rate_plans"] if rp["rate_plan_code"] == rate_plan]
    return found


def from_model() -> float:
    return RATES.labels("model")._value.get()


def test_the_model_answers_and_committed_ari_shows_in_the_next_request(client, pull,
                                                                        lisbon_ari, db):
    before = from_model()
    nrf = offer(rates(client, pull), "ACME-DBL", "ACME-NRF")
    assert from_model() == before + 1          # answered by the model, not the statements
    assert [n["amount"] for n in nrf["nights"]] == [90, 90]
    set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="50.00", min_stay=3)
    nrf = offer(rates(client, pull), "ACME-DBL", "ACME-NRF")
    assert [n["amount"] for n in nrf["nights"]] == [90, 50]
    assert (nrf["total_amount"], nrf["nights"][1]["min_stay"]) == (140, 3)
    # the last DBL room of the first night gone, as a booking's decrement leaves it
    set_room_days(db, "LIS1", "DBL", [day(0)], available=0)
    bar = offer(rates(client, pull), "ACME-DBL", "ACME-BAR")
    assert (bar["sellable"], bar["reasons"], bar["nights"][0]["available_rooms"]) == (
        False, ["sold_out"], 0)
    assert from_model() == before + 3


def test_a_pause_is_not_found_at_once_and_a_resume_answers_again(app, client, pull,
                                                                  lisbon_ari):
    rates(client, pull)
    runner = app.test_cli_runner()
    paused = runner.invoke(args=["distribution", "pause", "--partner", "acme",
                                 "--property", "LIS1"])
    assert paused.exit_code == 0, paused.output
    assert rates(client, pull, status=404)["code"] == "not_found"
    resumed = runner.invoke(args=["distribution", "resume", "--partner", "acme",
                                  "--property", "LIS1"])
    assert resumed.exit_code == 0, resumed.output
    before = from_model()
    assert offer(rates(client, pull), "ACME-DBL", "ACME-NRF")["total_amount"] == 180
    assert from_model() == before + 1


def test_a_catalogue_load_shows_its_board_type_and_policy_in_the_next_request(
        client, pull, lisbon_ari, db):
    assert offer(rates(client, pull), "ACME-DBL", "ACME-NRF")["board_type"] == "RO"
    catalogue = json.loads(DEMO_CATALOG.read_text())
    [nrf] = [p for p in catalogue["properties"][0]["rate_plans"] if p["code"] == "NRF"]
    nrf["board_type"] = "HB"
    nrf["cancellation_policy"] = {"non_refundable": False, "tiers": [
        {"within_hours": 12, "penalty": {"type": "percent", "value": 50}}]}
    db.run(load_catalog, parse_catalog(json.dumps(catalogue)))
    before = from_model()
    changed = offer(rates(client, pull), "ACME-DBL", "ACME-NRF")
    assert from_model() == before + 1
    assert changed["board_type"] == "HB"
    assert changed["cancellation_policy"] == nrf["cancellation_policy"]


def test_a_model_that_skips_catch_ups_keeps_a_stale_answer_no_longer_than_it_may(
        app, lisbon_ari, db):
    now = [1000.0]
    model = SearchModel(services_of(app).reads, background=False, refresh_seconds=0.5,
                        clock=lambda: now[0])
    caller = _caller(db)
    request = {"hotel_code": "ACME-LIS", "check_in": day(0), "check_out": day(2), "rooms": 1,
               "occupancy": [{"adults": 2}]}

    def total():
        answer = rates_module.rates(services_of(app).reads, caller, request,
                                    dt.datetime.now(dt.timezone.utc), model)
        [nrf] = [rp for rt in answer["room_types"] for rp in rt["rate_plans"]
                 if rt["room_type_code"] == "ACME-DBL" and rp["rate_plan_code"] == "ACME-NRF"]
        return nrf["total_amount"]

    before = from_model()
    assert total() == Decimal("180.00")
    assert from_model() == before + 1
    set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="50.00")
    now[0] += 0.2
    assert total() in (Decimal("180.00"), Decimal("140.00"))  # within the while: either
    now[0] += 0.31
    assert total() == Decimal("140.00")                        # past it: never the old one


def test_a_new_process_and_a_database_restart_lose_nothing(app, client, pull, lisbon_ari, db):
    """After PostgreSQL dropped every connection (as a restart does) the model catches up
    through a new one; a new web process's model starts empty and answers what is current."""
    assert offer(rates(client, pull), "ACME-DBL", "ACME-NRF")["total_amount"] == 180
    with psycopg.connect(services_of(app).settings.database_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      "WHERE datname = current_database() AND pid <> pg_backend_pid()")
    set_plan_days(db, "LIS1", "DBL", "NRF", [day(1)], rate="50.00")
    before = from_model()
    assert offer(rates(client, pull), "ACME-DBL", "ACME-NRF")["total_amount"] == 140
    assert from_model() == before + 1
    fresh = SearchModel(services_of(app).reads, background=False)
    answer = rates_module.rates(services_of(app).reads, _caller(db), {
        "hotel_code": "ACME-LIS", "check_in": day(0), "check_out": day(2), "rooms": 1,
        "occupancy": [{"adults": 2}]}, dt.datetime.now(dt.timezone.utc), fresh)
    [nrf] = [rp for rt in answer["room_types"] for rp in rt["rate_plans"]
             if rt["room_type_code"] == "ACME-DBL" and rp["rate_plan_code"] == "ACME-NRF"]
    assert nrf["total_amount"] == Decimal("140.00")
    assert (fresh.held(), from_model()) == (1, before + 2)
