"""GET /ari (contract 11.1): stored values per level for every date, `set_by` naming the batch
in force per field (another partner's as `other_partner`), and `rooms_sold` night by night."""

from __future__ import annotations

import datetime as dt
import json

import psycopg
import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.bookings.conftest import booking_body
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

from tests.ari.conftest import API, START, day

# A second partner on the same LIS1 property, pushing under its own codes.
GLOBEX = json.dumps({"partners": [{"code": "globex", "name": "Globex Trips", "mappings": [
    {"property": "LIS1", "hotel_code": "GLX-LIS", "active": True,
     "room_types": {"DBL": "GLX-DBL"}, "rate_plans": {"BAR": "GLX-BAR"}}]}]})


@pytest.fixture
def read(client, push):
    def _read(headers=None, **params) -> dict:
        query = {"hotel_code": "ACME-LIS", "from_date": day(0), "to_date": day(2), **params}
        return assert_envelope_success(client.get(f"{API}/ari", query_string=query,
                                                  headers=headers or push))
    return _read


@pytest.fixture
def globex_push(db, issue, catalog):
    db.run(load_catalog, parse_catalog(GLOBEX))
    return {"Authorization": f"Bearer {issue('push', partner='globex', signed=False).token}"}


def by_code(entries: list[dict], key: str) -> dict:
    return {e[key]: e for e in entries}


def test_every_date_of_every_mapped_room_type_and_plan_with_nulls(read, catalog):
    data = read()
    assert (data["hotel_code"], data["from_date"], data["to_date"]) == ("ACME-LIS", day(0),
                                                                         day(2))
    rooms = by_code(data["room_types"], "room_type_code")
    assert list(rooms) == ["ACME-DBL", "ACME-SGL"]
    assert [p["rate_plan_code"] for p in rooms["ACME-DBL"]["rate_plans"]] == [
        "ACME-BAR", "ACME-NRF", "ACME-RES", "ACME-USD"]
    # NRF does not sell SGL (demo catalogue).
    assert [p["rate_plan_code"] for p in rooms["ACME-SGL"]["rate_plans"]] == ["ACME-BAR"]
    assert [d["date"] for d in rooms["ACME-DBL"]["days"]] == [day(0), day(1), day(2)]
    assert rooms["ACME-DBL"]["days"][0] == {
        "date": day(0), "availability": None, "rooms_sold": 0, "closed": None,
        "min_stay": None, "max_stay": None, "closed_to_arrival": None,
        "closed_to_departure": None, "set_by": {}}
    plan = rooms["ACME-DBL"]["rate_plans"][0]
    assert plan["currency"] == "EUR"
    assert plan["days"][2] == {
        "date": day(2), "rate": None, "single_rate": None, "extra_adult_rate": None,
        "extra_child_rate": None, "closed": None, "min_stay": None, "max_stay": None,
        "closed_to_arrival": None, "closed_to_departure": None, "set_by": {}}


def test_set_by_names_the_newest_batch_per_field_even_applied_out_of_order(
        read, put, work, batch_queue):
    first = put([
        {"room_type_code": "ACME-DBL", "date": day(0), "availability": 4, "min_stay": 2},
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
         "rate": "100.50", "single_rate": 80, "closed": False}])
    second = put([
        {"room_type_code": "ACME-DBL", "date": day(0), "availability": 6},
        {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day(0),
         "rate": 120}])
    restrictions = put([{"room_type_code": "ACME-DBL", "from_date": day(0), "to_date": day(1),
                         "closed_to_arrival": True}], path="/ari/restrictions")
    # Applied newest first: the first batch's values must not overwrite the second's.
    batch_queue.queue.empty()
    for batch_id in (restrictions, second, first):
        batch_queue.enqueue(batch_id)
        assert work() == 1

    rooms = by_code(read()["room_types"], "room_type_code")
    room_day = rooms["ACME-DBL"]["days"][0]
    assert (room_day["availability"], room_day["min_stay"],
            room_day["closed_to_arrival"]) == (6, 2, True)
    assert room_day["set_by"] == {"availability": second, "min_stay": first,
                                  "closed_to_arrival": restrictions}
    assert rooms["ACME-DBL"]["days"][1]["set_by"] == {"closed_to_arrival": restrictions}
    assert rooms["ACME-DBL"]["days"][2]["set_by"] == {}
    bar = by_code(rooms["ACME-DBL"]["rate_plans"], "rate_plan_code")["ACME-BAR"]["days"][0]
    assert (bar["rate"], bar["single_rate"], bar["closed"]) == (120, 80, False)
    assert bar["set_by"] == {"rate": second, "single_rate": first, "closed": first}


def test_another_partners_batch_shows_as_other_partner(read, put, work, client, globex_push):
    ours = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 3,
                 "closed": False}])
    theirs = client.put(f"{API}/ari", headers=globex_push, json={"hotel_code": "GLX-LIS", "items": [
        {"room_type_code": "GLX-DBL", "rate_plan_code": "GLX-BAR", "date": day(0),
         "availability": 9, "rate": 99}]})
    assert_envelope_success(theirs, 202)
    # One job applies both (ari/apply.py groups the waiting batches); the other's is dropped.
    assert work() == 1

    room = by_code(read()["room_types"], "room_type_code")["ACME-DBL"]
    assert room["days"][0]["availability"] == 9
    assert room["days"][0]["set_by"] == {"availability": "other_partner", "closed": ours}
    assert room["rate_plans"][0]["days"][0]["set_by"] == {"rate": "other_partner"}
    # globex sees its own batch by id and ours as another partner's.
    seen = read(headers=globex_push, hotel_code="GLX-LIS")
    assert [r["room_type_code"] for r in seen["room_types"]] == ["GLX-DBL"]
    assert seen["room_types"][0]["days"][0]["set_by"]["closed"] == "other_partner"
    assert seen["room_types"][0]["days"][0]["set_by"]["availability"] != "other_partner"


def test_values_written_without_a_batch_have_no_set_by(read, db, catalog):
    set_room_days(db, "LIS1", "DBL", [START], available=5, closed=True)
    set_plan_days(db, "LIS1", "DBL", "BAR", [START], rate="90.25")
    room = by_code(read()["room_types"], "room_type_code")["ACME-DBL"]
    assert (room["days"][0]["availability"], room["days"][0]["closed"]) == (5, True)
    assert room["days"][0]["set_by"] == {}
    assert room["rate_plans"][0]["days"][0]["rate"] == 90.25


def test_codes_narrow_the_answer(read, catalog):
    data = read(room_type_codes="ACME-SGL,ACME-SGL", rate_plan_codes="ACME-NRF,ACME-BAR")
    assert [r["room_type_code"] for r in data["room_types"]] == ["ACME-SGL"]
    assert [p["rate_plan_code"] for p in data["room_types"][0]["rate_plans"]] == ["ACME-BAR"]
    data = read(rate_plan_codes="ACME-NRF")
    assert {r["room_type_code"]: [p["rate_plan_code"] for p in r["rate_plans"]]
            for r in data["room_types"]} == {"ACME-DBL": ["ACME-NRF"], "ACME-SGL": []}
    assert read(room_type_codes="NOPE")["room_types"] == []


def test_rooms_sold_counts_bookings_and_reservations_night_by_night(read, client, db, issue,
                                                                      catalog, push):
    set_room_days(db, "LIS1", "DBL", stay_dates(START, 6), available=10)
    set_plan_days(db, "LIS1", "DBL", "BAR", stay_dates(START, 6), rate="100.00")
    pull = {"Authorization": f"Bearer {issue('pull', rate_limit=100000).token}"}

    def book(reference, offset, nights, rooms):
        body = booking_body(reference, offset=offset, nights=nights, rooms=rooms,
                            total=str(100 * nights * rooms))
        body["check_in"], body["check_out"] = day(offset), day(offset + nights)
        assert_envelope_success(client.post(f"{API}/bookings", json=body, headers=pull), 201)

    def reserve(reference, offset, nights, quantity, path="/reservations"):
        body = {"partner_reference": reference, "hotel_code": "ACME-LIS", "status": "confirmed",
                "check_in": day(offset), "check_out": day(offset + nights),
                "rooms": [{"room_type_code": "ACME-DBL", "quantity": quantity, "adults": 2}],
                "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                            "is_adult": True}],
                "net_amount": "100.00", "net_currency": "EUR"}
        return client.post(f"{API}{path}", json=body, headers=push)

    def sold() -> list[int]:
        room = by_code(read(to_date=day(5))["room_types"], "room_type_code")["ACME-DBL"]
        return [d["rooms_sold"] for d in room["days"]]

    book("B-1", 0, 2, 2)                    # nights 0,1: 2 rooms
    book("B-2", 1, 3, 1)                    # nights 1,2,3: 1 room
    assert sold() == [2, 3, 1, 1, 0, 0]
    cancelled = client.post(f"{API}/bookings/B-1/cancel", json={}, headers=pull)
    assert_envelope_success(cancelled)
    assert sold() == [0, 1, 1, 1, 0, 0]

    assert_envelope_success(reserve("R-1", 2, 2, 3), 201)   # nights 2,3: 3 rooms
    assert_envelope_success(reserve("R-2", 0, 1, 1), 201)   # night 0: 1 room
    assert sold() == [1, 1, 4, 4, 0, 0]
    modify = {"check_in": day(3), "check_out": day(6),
              "rooms": [{"room_type_code": "ACME-DBL", "quantity": 2, "adults": 2}],
              "net_amount": "300.00", "net_currency": "EUR"}
    assert_envelope_success(client.post(f"{API}/reservations/R-1/modify", json=modify,
                                        headers=push))       # now nights 3,4,5: 2 rooms
    assert sold() == [1, 1, 1, 3, 2, 2]
    assert_envelope_success(client.post(f"{API}/reservations/R-2/cancel", json={},
                                        headers=push))
    assert sold() == [0, 1, 1, 3, 2, 2]
    # Availability moved with the sales, while set_by stays empty: no batch set it.
    room = by_code(read(to_date=day(5))["room_types"], "room_type_code")["ACME-DBL"]
    assert [d["availability"] for d in room["days"]] == [10, 9, 9, 7, 8, 8]
    assert all(d["set_by"] == {} for d in room["days"])


def test_a_paused_hotel_is_still_readable(read, app, catalog):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["distribution", "pause", "--partner", "acme",
                                 "--property", "LIS1"])
    assert result.exit_code == 0, result.output
    assert read()["hotel_code"] == "ACME-LIS"


@pytest.mark.parametrize("params, field", [
    ({"to_date": (START + dt.timedelta(days=367)).isoformat()}, "to_date"),
    ({"from_date": day(3), "to_date": day(2)}, "to_date"),
    ({"room_type_codes": ",".join(f"C{i}" for i in range(101))}, "room_type_codes"),
    ({"rate_plan_codes": "A,,B"}, "rate_plan_codes"),
    ({"from_date": "2027-02-30"}, "from_date"),
    ({"from_date": "20270101"}, "from_date"),
    ({"hotel_code": "A/B"}, "hotel_code"),
    ({"hotel_code": None}, "hotel_code"),
])
def test_bad_parameters_are_422_naming_the_field(client, push, params, field):
    query = {"hotel_code": "ACME-LIS", "from_date": day(0), "to_date": day(2), **params}
    query = {k: v for k, v in query.items() if v is not None}
    error = assert_envelope_failure(client.get(f"{API}/ari", query_string=query, headers=push),
                                    422, "validation_failed")
    assert field in error["details"]["fields"], error


def test_a_range_of_366_days_apart_is_accepted(read):
    data = read(to_date=(START + dt.timedelta(days=366)).isoformat(),
                room_type_codes="ACME-SGL")
    assert len(data["room_types"][0]["days"]) == 367


def test_unknown_or_other_partners_hotel_is_404(client, push, globex_push):
    for code in ("NOPE", "GLX-LIS"):
        query = {"hotel_code": code, "from_date": day(0), "to_date": day(1)}
        assert_envelope_failure(client.get(f"{API}/ari", query_string=query, headers=push),
                                404, "not_found")


def test_a_pull_key_may_not_read_back(client, issue, catalog):
    pull = {"Authorization": f"Bearer {issue('pull').token}"}
    query = {"hotel_code": "ACME-LIS", "from_date": day(0), "to_date": day(1)}
    error = assert_envelope_failure(client.get(f"{API}/ari", query_string=query, headers=pull),
                                    403, "insufficient_scope")
    assert error["details"]["required"] == ["ari.write", "restriction.write"]


def test_the_read_back_sees_one_snapshot_and_gives_the_connection_back_as_it_was(db, catalog):
    count = "SELECT count(*) AS n FROM room_type_days"
    with db.snapshot() as conn:
        before = conn.execute(count).fetchone()["n"]
        set_room_days(db, "LIS1", "DBL", [START], available=5)   # committed meanwhile
        assert conn.execute(count).fetchone()["n"] == before
        with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute("DELETE FROM room_type_days")
    for _ in range(3):   # whichever connection the pool hands out next
        with db.connection() as conn:
            assert conn.execute(count).fetchone()["n"] == before + 1
            settings = conn.execute("SELECT current_setting('transaction_isolation') AS i, "
                                    "current_setting('transaction_read_only') AS ro").fetchone()
            assert (settings["i"], settings["ro"]) == ("read committed", "off")
