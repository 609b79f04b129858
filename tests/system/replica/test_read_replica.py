"""Reads on a real streaming replica (contract 11.5): served there while it keeps up and holds
every acknowledged write (13.1), moved to the primary while it lags, lacks such a write or is
down, and back by themselves; never a cause of overselling, since every booking is decided on
the primary."""

from __future__ import annotations

import datetime as dt
import math
import time

from connectivity.telemetry import REGISTRY
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

from tests.system.replica.conftest import seed
from connectivity.web.services import services_of

API = "/api/connectivity/v1"
START = dt.date.today() + dt.timedelta(days=5)
NIGHTS = 2
# Not a figure under test: how long a test waits for reads to move before it fails.
GIVE_UP_SECONDS = 60


def reads(target: str) -> float:
    return REGISTRY.get_sample_value("pcs_db_reads_total", {"target": target}) or 0.0


def stay() -> dict:
    return {"check_in": START.isoformat(),
            "check_out": (START + dt.timedelta(days=NIGHTS)).isoformat(),
            "rooms": 1, "occupancy": [{"adults": 2}]}


def lisbon(application, available: int, rate: str = "100.00") -> None:
    db = services_of(application).db
    nights = stay_dates(START, NIGHTS)
    set_room_days(db, "LIS1", "DBL", nights, available=available)
    set_room_days(db, "LIS1", "SGL", nights, available=0)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate=rate)
    set_plan_days(db, "LIS1", "DBL", "NRF", nights, closed=True)


def search(client, headers) -> tuple[dict, str]:
    """The Lisbon hotel as search answers it, and which server answered."""
    replica, primary = reads("replica"), reads("primary")
    response = client.post(f"{API}/availability/search",
                           json={"hotel_codes": ["ACME-LIS"], **stay()}, headers=headers)
    assert response.status_code == 200, response.json
    served = ("replica" if reads("replica") > replica else
              "primary" if reads("primary") > primary else "?")
    return response.json["data"]["hotels"][0], served


def book(client, headers, reference: str, total=200):
    body = {"partner_reference": reference, "hotel_code": "ACME-LIS",
            "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", **stay(),
            "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                        "is_adult": True}],
            "contact": {"first_name": "Ana", "email": "ana@example.com"},
            "total_amount": total, "currency": "EUR"}
    del body["occupancy"]
    return client.post(f"{API}/bookings", json=body, headers=headers)


def primary_inventory(cluster) -> list[int]:
    import psycopg
    with psycopg.connect(cluster.primary_url) as conn:
        return [r[0] for r in conn.execute(
            "SELECT d.available FROM room_type_days d JOIN room_types rt ON rt.id = "
            "d.room_type_id WHERE rt.code = 'DBL' ORDER BY d.date")]


def booking_count(cluster) -> int:
    import psycopg
    with psycopg.connect(cluster.primary_url) as conn:
        return conn.execute("SELECT count(*) FROM bookings").fetchone()[0]


def until(served_by: str, client, headers) -> dict:
    """Searches until one is served by `served_by`; that answer."""
    deadline = time.monotonic() + GIVE_UP_SECONDS
    while True:
        hotel, served = search(client, headers)
        if served == served_by:
            return hotel
        assert time.monotonic() < deadline, f"reads never moved to the {served_by}"
        time.sleep(0.1)


def test_reads_are_served_by_the_replica_and_decisions_by_the_primary(cluster,
                                                                      make_replica_app):
    application = make_replica_app(max_lag_seconds=5)
    headers = seed(application)
    lisbon(application, available=3)
    cluster.replica_caught_up()
    client = application.test_client()

    hotel, served = search(client, headers)
    assert served == "replica" and hotel["available"] is True
    before, primary_before = reads("replica"), reads("primary")
    for path in ("/mapping/hotels", "/mapping/hotels/ACME-LIS"):
        assert client.get(f"{API}{path}", headers=headers).status_code == 200
    assert reads("replica") == before + 2
    rates = client.post(f"{API}/availability/rates", json={"hotel_code": "ACME-LIS", **stay()},
                        headers=headers)
    assert rates.status_code == 200, rates.json
    # Rates' statements, through the read target
    assert reads("replica") > before + 2 and reads("primary") == primary_before
    assert book(client, headers, "REPLICA-1").status_code == 201

    # Who is connected where, as each server sees it.
    on_replica = {r[0] for r in cluster.on_replica(
        "SELECT application_name FROM pg_stat_activity WHERE datname = 'connectivity'")}
    import psycopg
    with psycopg.connect(cluster.primary_url, autocommit=True) as conn:
        on_primary = {r[0] for r in conn.execute(
            "SELECT application_name FROM pg_stat_activity WHERE datname = 'connectivity'")}
    assert {"pcs-web-read", "pcs-lag-monitor"} <= on_replica
    assert "pcs-web" not in on_replica
    assert "pcs-web" in on_primary and "pcs-web-read" not in on_primary
    assert primary_inventory(cluster) == [2, 2]

    page = client.get("/metrics").get_data(as_text=True)
    assert 'pcs_db_reads_total{target="replica"}' in page
    assert "pcs_read_replica_lag_seconds " in page
    assert "pcs_read_replica_fallback 0.0" in page


def test_a_replica_that_lacks_an_acknowledged_write_answers_nothing(cluster, make_replica_app):
    """Replay paused: the replica still shows the last room after the primary sold it. From the
    booking's 201 on, every read comes from the primary and shows it sold (contract 13.1); a
    booking from the offer read before is refused, nothing taken."""
    application = make_replica_app(max_lag_seconds=3600)  # the lag alone would keep the replica
    headers = seed(application)
    lisbon(application, available=1)
    cluster.replica_caught_up()
    client = application.test_client()
    hotel, served = search(client, headers)
    assert served == "replica" and hotel["available"] is True
    cluster.on_replica("SELECT pg_wal_replay_pause()")

    assert book(client, headers, "FIRST").status_code == 201
    assert primary_inventory(cluster) == [0, 0]
    hotel, served = search(client, headers)
    assert served == "primary" and hotel["available"] is False
    before = reads("replica")
    rates = client.post(f"{API}/availability/rates", json={"hotel_code": "ACME-LIS", **stay()},
                        headers=headers).json["data"]
    assert reads("replica") == before
    [dbl] = [r for r in rates["room_types"] if r["room_type_code"] == "ACME-DBL"]
    [bar] = [p for p in dbl["rate_plans"] if p["rate_plan_code"] == "ACME-BAR"]
    assert bar["sellable"] is False and [n["available_rooms"] for n in bar["nights"]] == [0, 0]

    late = book(client, headers, "FROM-EARLIER-OFFER", total=200)
    assert late.status_code == 409 and late.json["error"]["code"] == "sold_out"
    assert primary_inventory(cluster) == [0, 0] and booking_count(cluster) == 1

    # Replayed past the booking: the replica answers again.
    cluster.on_replica("SELECT pg_wal_replay_resume()")
    assert until("replica", client, headers)["available"] is False


def test_the_read_model_catches_up_from_the_primary(cluster, make_replica_app):
    """With the search model on and the replica paused, a booking shows at once in search and
    rates: the model catches up from the primary, never from the replica."""
    application = make_replica_app(max_lag_seconds=3600, read_model=True)
    headers = seed(application)
    lisbon(application, available=1)
    cluster.replica_caught_up()
    client = application.test_client()
    assert search(client, headers)[0]["available"] is True
    cluster.on_replica("SELECT pg_wal_replay_pause()")
    assert book(client, headers, "MODEL-1").status_code == 201
    assert search(client, headers)[0]["available"] is False
    cluster.on_replica("SELECT pg_wal_replay_resume()")


def test_reads_leave_a_lagging_replica_and_come_back_when_it_catches_up(cluster,
                                                                       make_replica_app):
    application = make_replica_app(max_lag_seconds=1)
    headers = seed(application)
    lisbon(application, available=5)
    cluster.replica_caught_up()
    client = application.test_client()
    assert search(client, headers)[1] == "replica"

    cluster.on_replica("SELECT pg_wal_replay_pause()")
    assert book(client, headers, "DURING-LAG-1").status_code == 201  # WAL the replica holds back
    hotel, served = search(client, headers)  # the booking is not on the replica: at once
    assert served == "primary" and hotel["available"] is True
    deadline = time.monotonic() + GIVE_UP_SECONDS
    while REGISTRY.get_sample_value("pcs_read_replica_fallback") != 1:  # the lag seen too
        assert time.monotonic() < deadline, "the lag was never seen"
        search(client, headers)
        time.sleep(0.1)
    assert REGISTRY.get_sample_value("pcs_read_replica_lag_seconds") > 1
    assert book(client, headers, "DURING-LAG-2").status_code == 201
    assert primary_inventory(cluster) == [3, 3]

    cluster.on_replica("SELECT pg_wal_replay_resume()")
    until("replica", client, headers)
    assert REGISTRY.get_sample_value("pcs_read_replica_lag_seconds") <= 1
    assert REGISTRY.get_sample_value("pcs_read_replica_fallback") == 0
    assert primary_inventory(cluster) == [3, 3] and booking_count(cluster) == 2


def test_a_stopped_replica_sends_reads_to_the_primary_without_a_5xx(cluster, make_replica_app):
    application = make_replica_app(max_lag_seconds=5)
    headers = seed(application)
    lisbon(application, available=10)
    cluster.replica_caught_up()
    client = application.test_client()
    assert search(client, headers)[1] == "replica"

    cluster.replica.stop()
    served = [search(client, headers)[1] for _ in range(5)]  # each one a 200 (search asserts)
    assert set(served) == {"primary"}
    assert math.isinf(REGISTRY.get_sample_value("pcs_read_replica_lag_seconds"))
    assert REGISTRY.get_sample_value("pcs_read_replica_fallback") == 1
    for n in range(3):
        assert book(client, headers, f"REPLICA-DOWN-{n}").status_code == 201
    assert primary_inventory(cluster) == [7, 7]

    cluster.replica.start()
    until("replica", client, headers)
    assert primary_inventory(cluster) == [7, 7] and booking_count(cluster) == 3
