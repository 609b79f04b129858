"""Deliveries racing each other on real connections, released together by a barrier."""

from __future__ import annotations

import threading

from tests.reservations.conftest import API, available, day, items, nightly, reservation


def race(app, requests):
    """Send every (path, body, headers) at once; the responses in the same order."""
    barrier = threading.Barrier(len(requests))
    responses = [None] * len(requests)

    def send(i, path, body, headers):
        client = app.test_client()
        barrier.wait()
        responses[i] = client.post(API + path, json=body, headers=headers)

    threads = [threading.Thread(target=send, args=(i, *r)) for i, r in enumerate(requests)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return responses


def test_a_cancel_racing_its_reservation_always_ends_cancelled_and_released(app, push, lisbon,
                                                                            db):
    references = [f"RACE-{n}" for n in range(4)]
    requests = []
    for ref in references:
        requests += [("/reservations", reservation(ref), push),
                     (f"/reservations/{ref}/cancel", {}, push)]
    responses = race(app, requests)
    assert [r.status_code for r in responses] == [201, 200] * len(references), [
        r.get_json() for r in responses]
    states = db.run(lambda c: c.execute(
        "SELECT partner_reference, status, received_at IS NOT NULL AS received "
        "FROM reservations ORDER BY partner_reference").fetchall())
    assert [(s["status"], s["received"]) for s in states] == [("cancelled", True)] * 4
    assert available(db, "DBL") == [5] * 6
    # the cancels that won the race are the orphans, and only those
    orphans = {i["partner_reference"] for i in items(db) if i["code"] == "orphan_cancellation"}
    flagged = {ref for ref, r in zip(references, responses[1::2]) if r.get_json()["data"]["orphan"]}
    assert orphans == flagged


def test_reservations_over_two_room_types_in_either_order_all_land(app, push, lisbon, db):
    sgl = {"room_type_code": "ACME-SGL", "quantity": 1, "adults": 1,
           "nightly_rates": nightly(4, "50.00")}
    dbl = {"room_type_code": "ACME-DBL", "quantity": 2, "adults": 2,
           "nightly_rates": nightly(4, "50.00")}
    requests = [("/reservations",
                 reservation(f"MIX-{n}", check_out=day(4).isoformat(),
                             rooms=[sgl, dbl] if n % 2 else [dbl, sgl], sell_amount="600.00"),
                 push)
                for n in range(6)]
    responses = race(app, requests)
    assert [r.status_code for r in responses] == [201] * 6
    assert available(db, "SGL") == [0, 0, 0, 0, 3, 3]
    assert available(db, "DBL") == [0, 0, 0, 0, 5, 5]
    taken = db.run(lambda c: c.execute(
        "SELECT rt.code, n.date, sum(n.taken) AS taken, sum(n.wanted) AS wanted "
        "FROM reservation_nights n JOIN room_types rt ON rt.id = n.room_type_id "
        "GROUP BY rt.code, n.date ORDER BY rt.code, n.date").fetchall())
    assert {(t["code"], t["taken"], t["wanted"]) for t in taken} == {("DBL", 5, 12),
                                                                      ("SGL", 3, 6)}


def test_modifies_swapping_room_types_both_apply(app, push, lisbon, db):
    client = app.test_client()
    dbl = {"room_type_code": "ACME-DBL", "quantity": 1, "adults": 2}
    sgl = {"room_type_code": "ACME-SGL", "quantity": 1, "adults": 1}
    for ref, rooms in (("SWAP-A", [dbl]), ("SWAP-B", [sgl])):
        response = client.post(API + "/reservations", json=reservation(
            ref, rooms=rooms, sell_amount=None, sell_currency=None), headers=push)
        assert response.status_code == 201
    stay = {"check_in": day(0).isoformat(), "check_out": day(2).isoformat(),
            "net_amount": 1, "net_currency": "EUR"}
    for round_ in range(3):
        a, b = ([sgl], [dbl]) if round_ % 2 == 0 else ([dbl], [sgl])
        responses = race(app, [("/reservations/SWAP-A/modify", dict(stay, rooms=a), push),
                               ("/reservations/SWAP-B/modify", dict(stay, rooms=b), push)])
        assert [r.status_code for r in responses] == [200, 200]
        assert available(db, "DBL", nights=2) == [4, 4]
        assert available(db, "SGL", nights=2) == [2, 2]
    held = db.run(lambda c: c.execute(
        "SELECT count(*) AS n FROM reservation_nights WHERE released_at IS NULL").fetchone())
    assert held["n"] == 4
