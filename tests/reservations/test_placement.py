"""Where a pushed reservation lives (issue 17): with its hotel, so that under Citus every row of
a reservation is on its hotel's shard. A cancel or modify that overtakes its reservation is kept
with the hotel it names (`hotel_code`), else with the partner's first hotel, and moves to the
reservation's hotel when that arrives; the claim of the reference always says where it is."""

from __future__ import annotations

import threading
import time

import psycopg
from psycopg.rows import dict_row

from connectivity.store.queries import queries
from connectivity.reservations.service import _move_orphan
from tests.support import lockwaits
from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.support.ari_days import set_room_days, stay_dates

from tests.reservations.conftest import START, available, day, items, post, reservation

OPORTO = {"hotel_code": "ACME-OPO",
          "rooms": [{"room_type_code": "ACME-TWN", "quantity": 1, "adults": 2}]}


def placed(db, reference: str = "CM-1") -> dict:
    """The hotel code of the property holding each of the reference's rows."""
    def read(conn):
        def codes(table, column="reservation_id"):
            return sorted({r["code"] for r in conn.execute(
                f"SELECT p.code FROM {table} t JOIN properties p ON p.id = t.property_id "
                f"WHERE t.{column} IN (SELECT reservation_id FROM reservation_claims "
                "WHERE partner_reference = %s)", (reference,))})
        return {"claim": sorted(r["code"] for r in conn.execute(
                    "SELECT p.code FROM reservation_claims c JOIN properties p "
                    "ON p.id = c.property_id WHERE c.partner_reference = %s", (reference,))),
                "reservation": codes("reservations", "id"),
                "versions": codes("reservation_versions"),
                "items": codes("reconciliation_items")}
    return db.run(read)


def test_an_orphan_cancel_naming_its_hotel_is_kept_there(client, push, lisbon, db):
    set_room_days(db, "OPO1", "TWN", stay_dates(START, 2), available=2)
    data = assert_envelope_success(
        post(client, "/reservations/CM-1/cancel", {"hotel_code": "ACME-OPO"}, push))
    assert data["orphan"] is True
    assert placed(db) == {"claim": ["OPO1"], "reservation": ["OPO1"], "versions": ["OPO1"],
                          "items": ["OPO1"]}
    late = assert_envelope_success(post(client, "/reservations", reservation(**OPORTO), push), 201)
    assert late["reservation"]["status"] == "cancelled"
    assert available(db, "TWN", nights=2, property_code="OPO1") == [2, 2]


def test_an_orphan_naming_no_hotel_moves_to_its_reservations_hotel(client, push, lisbon, db):
    """Kept with acme's first hotel (LIS1), then moved whole to OPO1 when the reservation comes:
    its versions (a redelivery included), its reconciliation item and its claim."""
    set_room_days(db, "OPO1", "TWN", stay_dates(START, 2), available=2)
    first = assert_envelope_success(post(client, "/reservations/CM-1/cancel", {}, push))
    again = assert_envelope_success(post(client, "/reservations/CM-1/cancel", {}, push))
    assert again["idempotent_replay"] is True
    assert placed(db) == {"claim": ["LIS1"], "reservation": ["LIS1"], "versions": ["LIS1"],
                          "items": ["LIS1"]}

    late = assert_envelope_success(post(client, "/reservations", reservation(**OPORTO), push), 201)
    assert late["reservation"]["status"] == "cancelled" and late["reservation"]["version"] == 3
    assert placed(db) == {"claim": ["OPO1"], "reservation": ["OPO1"], "versions": ["OPO1"],
                          "items": ["OPO1"]}
    assert [i["code"] for i in items(db)] == ["orphan_cancellation", "nightly_rates_missing"]
    # Nothing taken anywhere (it is cancelled), and the moved versions still answer replays.
    assert available(db, "TWN", nights=2, property_code="OPO1") == [2, 2]
    assert available(db, "DBL") == [5] * 6
    replay = assert_envelope_success(post(client, "/reservations/CM-1/cancel", {}, push))
    assert replay["idempotent_replay"] is True
    assert replay["acknowledgement"]["ack_id"] == first["acknowledgement"]["ack_id"]


def test_an_unknown_modify_naming_its_hotel_moves_with_a_later_cancel(client, push, lisbon, db):
    """A modify kept with the first hotel, then a cancel naming OPO1: moved before the cancel
    is recorded, so both versions are at OPO1."""
    modify = {"check_in": day(0).isoformat(), "check_out": day(2).isoformat(),
              "rooms": [{"room_type_code": "ACME-TWN", "quantity": 1, "adults": 2}],
              "net_amount": "100.00", "net_currency": "EUR"}
    assert_envelope_success(post(client, "/reservations/CM-1/modify", modify, push))
    assert placed(db)["reservation"] == ["LIS1"]
    assert_envelope_success(
        post(client, "/reservations/CM-1/cancel", {"hotel_code": "ACME-OPO"}, push))
    assert placed(db) == {"claim": ["OPO1"], "reservation": ["OPO1"], "versions": ["OPO1"],
                          "items": ["OPO1"]}


def test_a_delivery_naming_another_hotel_than_its_received_reservations_is_refused(
        client, push, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    before = placed(db)
    for route, body in (("cancel", {"hotel_code": "ACME-OPO"}),
                        ("modify", {"hotel_code": "ACME-OPO", "check_in": day(0).isoformat(),
                                    "check_out": day(1).isoformat(), "net_amount": "1.00",
                                    "net_currency": "EUR",
                                    "rooms": [{"room_type_code": "ACME-DBL", "quantity": 1,
                                               "adults": 1}]})):
        error = assert_envelope_failure(
            post(client, f"/reservations/CM-1/{route}", body, push), 422, "validation_failed")
        assert "hotel_code" in error["details"]["fields"]
    # The reference's reservation again, at the other hotel: a redelivery with another body
    # (contract 7), answered with the original; nothing moves.
    again = assert_envelope_success(post(client, "/reservations", reservation(**OPORTO), push))
    assert again["idempotent_replay"] is True and again["request_differs"] is True
    assert again["reservation"]["hotel_code"] == "ACME-LIS"
    assert placed(db) == before
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]


def test_an_orphan_naming_an_unmapped_hotel_is_not_found_and_stores_nothing(client, push, lisbon,
                                                                            db):
    assert_envelope_failure(
        post(client, "/reservations/CM-1/cancel", {"hotel_code": "NOPE"}, push), 404, "not_found")
    assert placed(db) == {"claim": [], "reservation": [], "versions": [], "items": []}


def test_a_delivery_waiting_for_an_orphan_that_moves_meanwhile_follows_it(
        client, push, lisbon, db, services):
    """The redelivery of a cancel waits for the orphan's row lock while another transaction
    moves the orphan to its hotel (the service's own move, committed while it waits): the row
    it waited for is gone, and it finds the orphan through the claim at its new hotel."""
    first = assert_envelope_success(post(client, "/reservations/CM-1/cancel", {}, push))
    keys = db.run(lambda c: c.execute(
        "SELECT partner_id, environment, partner_reference FROM reservation_claims").fetchone())
    oporto = db.run(lambda c: c.execute("SELECT id FROM properties WHERE code = 'OPO1'")
                    .fetchone())["id"]
    outcome = {}
    with psycopg.connect(services.database_url, row_factory=dict_row) as mover:
        claim = queries().reservations.find_reservation_claim(mover, **keys)
        row = queries().reservations.lock_reservation(mover, **claim)
        redelivery = threading.Thread(target=lambda: outcome.update(response=post(
            client, "/reservations/CM-1/cancel", {}, push)))
        redelivery.start()
        for _ in range(500):
            # (On Citus the wait is on the worker holding the row: tests/support/lockwaits.py.)
            if lockwaits.waiting(services.database_url, query_has="FOR UPDATE OF r"):
                break
            time.sleep(0.01)
        else:
            raise AssertionError("the redelivery never waited for the orphan's lock")
        _move_orphan(mover, keys, row, oporto)
        mover.commit()
    redelivery.join(10)
    replay = assert_envelope_success(outcome["response"])
    assert replay["idempotent_replay"] is True
    assert replay["acknowledgement"]["ack_id"] == first["acknowledgement"]["ack_id"]
    assert placed(db) == {"claim": ["OPO1"], "reservation": ["OPO1"], "versions": ["OPO1"],
                          "items": ["OPO1"]}
