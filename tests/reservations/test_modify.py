"""POST /reservations/{reference}/modify: the complete new state, inventory moved from the old
state to the new in one transaction, every body kept."""

from __future__ import annotations

from tests.support.envelope import assert_envelope_success

from tests.reservations.conftest import available, day, items, post, reservation


def modify(client, push, body, reference="CM-1"):
    return assert_envelope_success(post(client, f"/reservations/{reference}/modify", body, push))


def new_state(**fields):
    body = {"check_in": day(2).isoformat(), "check_out": day(5).isoformat(),
            "rooms": [{"room_type_code": "ACME-SGL", "quantity": 2, "adults": 1},
                      {"room_type_code": "ACME-DBL", "quantity": 1, "adults": 2}],
            "net_amount": "420.00", "net_currency": "EUR", "modified_at": day(-3).isoformat()}
    body.update(fields)
    return body


def test_modify_moves_dates_and_room_types(client, push, lisbon, db):
    body = reservation(rooms=[{"room_type_code": "ACME-DBL", "quantity": 2, "adults": 2}],
                       sell_amount=None, sell_currency=None)
    assert_envelope_success(post(client, "/reservations", body, push), 201)
    assert available(db, "DBL") == [3, 3, 5, 5, 5, 5]
    assert available(db, "SGL") == [3, 3, 3, 3, 3, 3]

    data = modify(client, push, new_state())
    assert data["idempotent_replay"] is False and data["reconciliation"] == []
    shown = data["reservation"]
    assert shown["status"] == "modified"
    assert (shown["check_in"], shown["check_out"]) == (day(2).isoformat(), day(5).isoformat())
    assert shown["net_amount"] == 420 and shown["modified_at"] == day(-3).isoformat()
    assert [r["room_type_code"] for r in shown["rooms"]] == ["ACME-SGL", "ACME-DBL"]
    assert shown["guests"][0]["first_name"] == "Ana"  # what the modify does not carry stays
    assert available(db, "DBL") == [5, 5, 4, 4, 4, 5]
    assert available(db, "SGL") == [3, 3, 1, 1, 1, 3]

    # and a cancel now releases the new state's holds exactly
    assert_envelope_success(post(client, "/reservations/CM-1/cancel", {}, push))
    assert available(db, "DBL") == [5] * 6
    assert available(db, "SGL") == [3] * 6


def test_modify_into_a_shortfall(client, push, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    data = modify(client, push, new_state(rooms=[
        {"room_type_code": "ACME-SGL", "quantity": 4, "adults": 1}]))
    assert [i["code"] for i in data["reconciliation"]] == ["inventory_shortfall"]
    assert available(db, "SGL") == [3, 3, 0, 0, 0, 3]
    assert available(db, "DBL") == [5] * 6
    assert_envelope_success(post(client, "/reservations/CM-1/cancel", {}, push))
    assert available(db, "SGL") == [3] * 6


def test_every_body_is_kept_and_a_redelivered_modify_changes_nothing(client, push, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    first = modify(client, push, new_state())
    again = modify(client, push, new_state())
    assert again["idempotent_replay"] is True
    assert again["acknowledgement"] == first["acknowledgement"]
    assert available(db, "SGL") == [3, 3, 1, 1, 1, 3]
    back = modify(client, push, new_state(check_in=day(0).isoformat(),
                                          check_out=day(2).isoformat(),
                                          rooms=[{"room_type_code": "ACME-DBL", "quantity": 1,
                                                  "adults": 2}]))
    assert back["idempotent_replay"] is False
    assert available(db, "SGL") == [3] * 6
    assert available(db, "DBL") == [4, 4, 5, 5, 5, 5]
    kept = db.run(lambda c: c.execute(
        "SELECT kind, replay_of, payload FROM reservation_versions ORDER BY version").fetchall())
    assert [(k["kind"], k["replay_of"]) for k in kept] == [
        ("create", None), ("modify", None), ("modify", 2), ("modify", None)]
    assert kept[1]["payload"]["check_in"] == day(2).isoformat()


def test_modify_of_an_unknown_reservation_is_kept_and_applied_when_it_arrives(
        client, push, lisbon, db):
    data = modify(client, push, new_state())
    assert [i["code"] for i in data["reconciliation"]] == ["unknown_modification"]
    assert data["reservation"]["received"] is False
    assert available(db, "SGL") == [3] * 6

    late = assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    assert late["reservation"]["status"] == "modified"
    assert late["reservation"]["check_in"] == day(2).isoformat()
    assert available(db, "DBL") == [5, 5, 4, 4, 4, 5]
    assert available(db, "SGL") == [3, 3, 1, 1, 1, 3]


def test_modify_of_a_cancelled_reservation_is_kept_not_applied(client, push, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    post(client, "/reservations/CM-1/cancel", {}, push)
    data = modify(client, push, new_state())
    assert data["reservation"]["status"] == "cancelled"
    assert [i["code"] for i in data["reconciliation"]] == ["modification_after_cancellation"]
    assert available(db, "DBL") == [5] * 6 and available(db, "SGL") == [3] * 6


def test_modify_to_an_unmapped_room_type_is_flagged(client, push, lisbon, db):
    assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    data = modify(client, push, new_state(rooms=[
        {"room_type_code": "NOPE-ROOM", "quantity": 1, "adults": 1}]))
    assert [i["code"] for i in data["reconciliation"]] == ["unmapped_room_type"]
    assert available(db, "DBL") == [5] * 6
    assert [i["code"] for i in items(db)] == ["unmapped_room_type"]


def test_an_unknown_modify_to_an_unmapped_room_type_is_flagged_when_the_reservation_arrives(
        client, push, lisbon, db):
    modify(client, push, new_state(rooms=[
        {"room_type_code": "NOPE-ROOM", "quantity": 1, "adults": 1},
        {"room_type_code": "ACME-SGL", "quantity": 1, "adults": 1}]))
    late = assert_envelope_success(post(client, "/reservations", reservation(), push), 201)
    assert [i["code"] for i in late["reconciliation"]] == ["unmapped_room_type"]
    assert available(db, "SGL") == [3, 3, 2, 2, 2, 3]
    assert available(db, "DBL") == [5] * 6
