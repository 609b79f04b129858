"""POST /reservations: first delivery, redelivery (sequential and concurrent), inventory taken
as far as it goes, and what is recorded for reconciliation."""

from __future__ import annotations

import threading

import pytest

from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.support.ari_days import set_room_days, stay_dates

from tests.reservations.conftest import API, START, available, day, items, nightly, post, reservation


def versions(db, reference):
    return db.run(lambda conn: conn.execute(
        "SELECT v.version, v.kind, v.ack_id, v.replay_of, v.payload FROM reservation_versions v "
        "JOIN reservations r ON r.property_id = v.property_id AND r.id = v.reservation_id "
        "WHERE r.partner_reference = %s "
        "ORDER BY v.version", (reference,)).fetchall())


def test_first_delivery_is_201_takes_inventory_and_is_clean(client, push, lisbon, db):
    data = assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    assert data["idempotent_replay"] is False
    assert data["reconciliation"] == []
    assert data["acknowledgement"]["ack_id"].startswith("ack_")
    booked = data["reservation"]
    assert booked["partner_reference"] == "CM-1" and booked["status"] == "confirmed"
    assert booked["received"] is True and booked["hotel_code"] == "ACME-LIS"
    assert booked["net_amount"] == 170 and booked["sell_amount"] == 200
    assert booked["rooms"][0]["nightly_rates"][0] == {"date": day(0).isoformat(), "amount": 100}
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]
    assert available(db, "SGL") == [3] * 6
    [kept] = versions(db, "CM-1")
    assert kept["kind"] == "create" and kept["payload"] == reservation()  # as received


def test_redelivery_returns_the_original_acknowledgement_and_takes_nothing_more(
        client, push, lisbon, db):
    first = assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    again = assert_envelope_success(post(client, "/reservations", reservation(), push), 200)
    assert again["idempotent_replay"] is True and again["request_differs"] is False
    assert again["acknowledgement"] == first["acknowledgement"]
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]

    # A redelivery whose body differs is still the original: nothing changes, it is flagged.
    changed = reservation(rooms=[{"room_type_code": "ACME-DBL", "quantity": 3, "adults": 2}])
    third = assert_envelope_success(post(client, "/reservations", changed, push), 200)
    assert third["request_differs"] is True
    assert third["acknowledgement"] == first["acknowledgement"]
    assert third["reservation"]["rooms"][0]["quantity"] == 1
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]
    # Every body received is kept, the redeliveries pointing at the original.
    kept = versions(db, "CM-1")
    assert [(v["kind"], v["replay_of"]) for v in kept] == [
        ("create", None), ("create", 1), ("create", 1)]
    assert {v["ack_id"] for v in kept} == {first["acknowledgement"]["ack_id"]}
    assert kept[2]["payload"]["rooms"][0]["quantity"] == 3


def test_redelivery_repeats_the_original_reconciliation(client, push, db, catalog):
    # no inventory at all: a shortfall on both nights
    first = assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    assert [i["code"] for i in first["reconciliation"]] == ["inventory_shortfall"]
    again = assert_envelope_success(post(client, "/reservations", reservation(), push), 200)
    assert again["reconciliation"] == first["reconciliation"]
    assert len(items(db)) == 1


def test_concurrent_redeliveries_make_one_reservation_and_one_decrement(app, push, lisbon, db):
    threads, results = 6, []
    barrier = threading.Barrier(threads)

    def deliver():
        client = app.test_client()
        barrier.wait()
        response = client.post(API + "/reservations", json=reservation(), headers=push)
        results.append((response.status_code, response.get_json()))

    workers = [threading.Thread(target=deliver) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] * (threads - 1) + [201], results
    assert len({body["data"]["acknowledgement"]["ack_id"] for _, body in results}) == 1
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]
    assert db.run(lambda c: c.execute("SELECT count(*) AS n FROM reservations").fetchone())["n"] == 1
    held = db.run(lambda c: c.execute(
        "SELECT sum(taken) AS taken FROM reservation_nights WHERE released_at IS NULL").fetchone())
    assert held["taken"] == 2


def test_concurrent_reservations_for_the_last_rooms_are_all_accepted(app, push, db, catalog):
    set_room_days(db, "LIS1", "DBL", stay_dates(START, 2), available=3)
    threads, results = 5, []
    barrier = threading.Barrier(threads)

    def deliver(n):
        client = app.test_client()
        barrier.wait()
        response = client.post(API + "/reservations", json=reservation(f"CM-{n}"), headers=push)
        results.append(response.status_code)

    workers = [threading.Thread(target=deliver, args=(n,)) for n in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert results == [201] * threads
    assert available(db, "DBL", nights=2) == [0, 0]
    taken = db.run(lambda c: c.execute(
        "SELECT date, sum(taken) AS taken, sum(wanted) AS wanted FROM reservation_nights "
        "GROUP BY date ORDER BY date").fetchall())
    assert [(t["taken"], t["wanted"]) for t in taken] == [(3, 5), (3, 5)]
    shortfalls = [i for i in items(db) if i["code"] == "inventory_shortfall"]
    assert len(shortfalls) == 2  # two reservations found nothing left, both nights
    assert all(len(i["details"]["nights"]) == 2 for i in shortfalls)


def test_accepted_at_zero_inventory_with_its_shortfall(client, push, db, catalog):
    set_room_days(db, "LIS1", "DBL", stay_dates(START, 3), available=0)
    set_room_days(db, "LIS1", "DBL", [day(1)], available=1)
    body = reservation(check_out=day(3).isoformat(),
                       rooms=[{"room_type_code": "ACME-DBL", "quantity": 2, "adults": 2,
                               "nightly_rates": nightly(3, "50.00")}], sell_amount="300.00")
    data = assert_envelope_success(post(client, "/reservations", body, push), 201)
    assert data["reservation"]["status"] == "confirmed"
    assert [i["code"] for i in data["reconciliation"]] == ["inventory_shortfall"]
    assert available(db, "DBL", nights=3) == [0, 0, 0]
    [item] = items(db)
    assert item["partner_reference"] == "CM-1"
    assert item["details"]["nights"] == [
        {"room_type_code": "ACME-DBL", "date": day(0).isoformat(), "wanted": 2, "taken": 0,
         "short": 2},
        {"room_type_code": "ACME-DBL", "date": day(1).isoformat(), "wanted": 2, "taken": 1,
         "short": 1},
        {"room_type_code": "ACME-DBL", "date": day(2).isoformat(), "wanted": 2, "taken": 0,
         "short": 2}]


def test_nights_without_inventory_rows_are_a_shortfall(client, push, db, catalog):
    set_room_days(db, "LIS1", "DBL", [day(0)], available=4)
    set_room_days(db, "LIS1", "DBL", [day(1)], closed=True)  # a row, availability never sent
    data = assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    assert [i["code"] for i in data["reconciliation"]] == ["inventory_shortfall"]
    assert available(db, "DBL", nights=2) == [3, None]
    [item] = items(db)
    assert [n["date"] for n in item["details"]["nights"]] == [day(1).isoformat()]


def test_same_room_type_on_two_lines_is_taken_once_per_night(client, push, lisbon, db):
    room = {"room_type_code": "ACME-DBL", "quantity": 2, "adults": 1,
            "nightly_rates": nightly(2, "50.00")}
    body = reservation(rooms=[room, dict(room, quantity=1)], sell_amount="300.00")
    data = assert_envelope_success(post(client, "/reservations", body, push), 201)
    assert data["reconciliation"] == []
    assert available(db, "DBL") == [2, 2, 5, 5, 5, 5]


def test_unmapped_codes_are_accepted_kept_and_flagged(client, push, lisbon, db):
    body = reservation(rooms=[
        {"room_type_code": "ACME-DBL", "rate_plan_code": "NOPE-PLAN", "quantity": 1,
         "adults": 2, "nightly_rates": nightly(2)},
        {"room_type_code": "NOPE-ROOM", "quantity": 1, "adults": 1,
         "nightly_rates": nightly(2, "0")}])
    data = assert_envelope_success(post(client, "/reservations", body, push), 201)
    assert sorted(i["code"] for i in data["reconciliation"]) == [
        "unmapped_rate_plan", "unmapped_room_type"]
    assert [r["room_type_code"] for r in data["reservation"]["rooms"]] == ["ACME-DBL",
                                                                         "NOPE-ROOM"]
    assert data["reservation"]["rooms"][0]["rate_plan_code"] == "NOPE-PLAN"
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]
    details = {i["code"]: i["details"] for i in items(db)}
    assert details["unmapped_room_type"] == {"room_type_codes": ["NOPE-ROOM"]}
    assert details["unmapped_rate_plan"] == {"rate_plan_codes": ["NOPE-PLAN"]}


@pytest.mark.parametrize("fields, code", [
    ({"rooms": [{"room_type_code": "ACME-DBL", "quantity": 1, "adults": 2}]},
     "nightly_rates_missing"),
    ({"rooms": [{"room_type_code": "ACME-DBL", "quantity": 1, "adults": 2,
                 "nightly_rates": nightly(1)}]}, "nightly_rates_missing"),
    ({"sell_amount": "199.99"}, "nightly_rates_mismatch"),
    # without sell_amount, net_amount is the figure compared
    ({"sell_amount": None, "sell_currency": None}, "nightly_rates_mismatch"),
    ({"sell_amount": None, "sell_currency": None, "net_amount": 200}, None),
    ({"sell_amount": "200.001"}, None),   # equal once rounded to the currency's cents
])
def test_nightly_rates_against_the_total(client, push, lisbon, db, fields, code):
    body = reservation(**fields)
    data = assert_envelope_success(post(client, "/reservations", body, push), 201)
    assert [i["code"] for i in data["reconciliation"]] == ([code] if code else [])


def test_mismatch_details_name_both_figures(client, push, lisbon, db):
    post(client, "/reservations", reservation(sell_amount="210.00"), push)
    [item] = items(db)
    assert item["details"] == {"nightly_total": "200.00", "compared_with": "sell_amount",
                               "amount": "210.00", "currency": "EUR"}


def test_first_delivery_cancelled_takes_nothing(client, push, lisbon, db):
    data = assert_envelope_success(
        post(client, "/reservations", reservation(status="cancelled"), push), 201)
    assert data["reservation"]["status"] == "cancelled"
    assert available(db, "DBL") == [5] * 6


def test_first_delivery_modified_takes_inventory(client, push, lisbon, db):
    data = assert_envelope_success(
        post(client, "/reservations", reservation(status="modified"), push), 201)
    assert data["reservation"]["status"] == "modified"
    assert data["reconciliation"] == []
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]


def test_a_paused_mapping_still_accepts_reservations(client, push, lisbon, db, app):
    with app.app_context():
        result = app.test_cli_runner().invoke(
            args=["distribution", "pause", "--partner", "acme", "--property", "LIS1"])
        assert result.exit_code == 0, result.output
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]


def test_unmapped_hotel_is_not_found_and_keeps_nothing(client, push, lisbon, db):
    error = assert_envelope_failure(
        post(client, "/reservations", reservation(hotel_code="NOPE-HOTEL"), push), 404,
        "not_found")
    assert "NOPE-HOTEL" in error["message"]
    assert db.run(lambda c: c.execute("SELECT count(*) AS n FROM reservations").fetchone())["n"] == 0
    # once the hotel code is right, the same reference is a first delivery
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)


def test_a_signed_push_key_delivers(client, issue, lisbon, db):
    import json

    from tests.support.signing import signed_headers
    key = issue("push")
    body = json.dumps(reservation()).encode()
    headers = signed_headers(key.token, "POST", API + "/reservations", body)
    response = client.post(API + "/reservations", data=body, headers=headers,
                           content_type="application/json")
    assert_envelope_success(response, 201)


def test_openapi_documents_both_success_statuses(client):
    document = client.get(API + "/openapi.json").get_json()
    operation = document["paths"][API + "/reservations"]["post"]
    assert {"200", "201", "404", "422"} <= set(operation["responses"])
    for path in ("/reservations", "/reservations/{reference}/cancel",
                 "/reservations/{reference}/modify"):
        description = document["paths"][API + path]["post"]["description"]
        assert "inventory_shortfall" in description and "penalty_claim_differs" in description
