"""Demo ARI (`catalog demo-ari`, run by `make run`): a fresh sandbox sells at once, shows each
kind of answer a partner must handle, and a restart never overwrites what is stored."""

from __future__ import annotations

import datetime as dt
import json
from zoneinfo import ZoneInfo

import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.operator.demo_ari import seed_demo_ari

from tests.operator.conftest import demo_data, output_of

API = "/api/connectivity/v1"
LISBON_TODAY = dt.datetime.now(ZoneInfo("Europe/Lisbon")).date()


def now():
    return dt.datetime.now(dt.timezone.utc)


def stay(offset: int, nights: int = 2, adults: int = 2, **fields) -> dict:
    check_in = LISBON_TODAY + dt.timedelta(days=offset)
    return {"check_in": check_in.isoformat(),
            "check_out": (check_in + dt.timedelta(days=nights)).isoformat(),
            "rooms": 1, "occupancy": [{"adults": adults}], **fields}


@pytest.fixture
def pull(issue, catalog):
    return {"Authorization": f"Bearer {issue('pull').token}"}


def post(client, headers, path, body):
    response = client.post(f"{API}{path}", json=body, headers=headers)
    assert response.status_code in (200, 201), response.json
    return response.json["data"]


def offers(client, headers, body):
    data = post(client, headers, "/availability/rates", {"hotel_code": "ACME-LIS", **body})
    return {(rt["room_type_code"], rp["rate_plan_code"]): rp
            for rt in data["room_types"] for rp in rt["rate_plans"]}


def test_a_fresh_sandbox_sells_every_hotel_next_week(client, db, pull):
    written = db.run(seed_demo_ari, now())
    assert written["room_type_days"] == 3 * 365 and written["rate_plan_days"] > 365
    data = post(client, pull, "/availability/search",
                {"hotel_codes": ["ACME-LIS", "ACME-OPO"], **stay(7)})
    assert [(h["hotel_code"], h["available"]) for h in data["hotels"]] == [
        ("ACME-LIS", True), ("ACME-OPO", True)], data
    assert all(h["lowest_total_amount"] > 0 for h in data["hotels"])


def test_the_plans_show_each_kind_of_answer(client, db, pull):
    db.run(seed_demo_ari, now())
    plans = offers(client, pull, stay(7))
    bar, nrf = plans[("ACME-DBL", "ACME-BAR")], plans[("ACME-DBL", "ACME-NRF")]
    assert bar["sellable"] and nrf["sellable"]
    # The non-refundable plan is the cheaper one.
    assert nrf["total_amount"] < bar["total_amount"]
    assert nrf["cancellation_policy"]["non_refundable"] is True
    # The residents' plan sells to Portuguese guests only.
    assert plans[("ACME-DBL", "ACME-RES")]["reasons"] == ["nationality"]
    portuguese = offers(client, pull, stay(7, nationality="PT"))
    assert portuguese[("ACME-DBL", "ACME-RES")]["sellable"] is True
    # The USD plan is priced in dollars and sold in the hotel's euros.
    usd = plans[("ACME-DBL", "ACME-USD")]
    assert usd["sellable"] is True and usd["total_amount"] != bar["total_amount"]


@pytest.mark.parametrize("offset, nights, reason", [
    (40, 1, "closed"),             # the closed dates
    (41, 2, "closed"),
    (60, 2, "closed_to_arrival"),  # no arrival that day
    (91, 1, "min_stay"),           # the two-night week
])
def test_a_few_dates_carry_restrictions(client, db, pull, offset, nights, reason):
    db.run(seed_demo_ari, now())
    plan = offers(client, pull, stay(offset, nights))[("ACME-DBL", "ACME-BAR")]
    assert plan["sellable"] is False and reason in plan["reasons"], plan
    # The day before sells: the restriction is the date's, not the season's.
    assert offers(client, pull, stay(offset - 3, 2))[("ACME-DBL", "ACME-BAR")]["sellable"]


def test_a_restart_fills_new_dates_and_overwrites_nothing(client, db, pg, pull):
    db.run(seed_demo_ari, now(), 10)
    pg.execute("UPDATE room_type_days SET available = 1 WHERE date = %s",
               (LISBON_TODAY + dt.timedelta(days=3),))
    pg.execute("UPDATE rate_plan_days SET rate = 999 WHERE date = %s",
               (LISBON_TODAY + dt.timedelta(days=3),))
    written = db.run(seed_demo_ari, now(), 12)
    # Only the two new dates of each room type are written.
    assert written["room_type_days"] == 3 * 2
    kept = pg.execute("SELECT DISTINCT available FROM room_type_days WHERE date = %s",
                      (LISBON_TODAY + dt.timedelta(days=3),)).fetchall()
    assert kept == [(1,)]
    rates = pg.execute("SELECT DISTINCT rate FROM rate_plan_days WHERE date = %s",
                       (LISBON_TODAY + dt.timedelta(days=3),)).fetchall()
    assert [float(r[0]) for r in rates] == [999.0]


def test_production_properties_are_never_touched(db, pg):
    data = demo_data()
    live = dict(data["properties"][1], code="OPO-LIVE", environment="production")
    data["properties"].append(live)
    db.run(load_catalog, parse_catalog(json.dumps(data)))
    db.run(seed_demo_ari, now(), 5, ("OPO-LIVE", "OPO1"))
    by_env = dict(pg.execute(
        "SELECT pr.environment, count(*) FROM room_type_days d "
        "JOIN properties pr ON pr.id = d.property_id GROUP BY 1").fetchall())
    assert by_env == {"sandbox": 5}


def test_the_operator_command(cli, catalog, pg):
    result = cli("catalog", "demo-ari", "--days", "3", "--property", "LIS1")
    assert result.exit_code == 0, output_of(result)
    assert "6 room_type_days rows" in output_of(result)
    again = cli("catalog", "demo-ari", "--days", "3", "--property", "LIS1")
    assert "0 room_type_days rows" in output_of(again)
    refused = cli("catalog", "demo-ari", "--days", "0")
    assert refused.exit_code != 0 and "--days" in output_of(refused)
