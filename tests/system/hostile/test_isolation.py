"""Every route that takes an id or a hotel code, called with acme's real ones by another
partner (globex) and by acme's own production keys: answered exactly as an absent id is, and
nothing of acme's changes (every row of the database is compared before and after)."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.support.envelope import assert_envelope_failure, assert_envelope_success

from tests.system.hostile.conftest import (
    API,
    ari_body,
    booking_body,
    changes,
    modify_body,
    quote_body,
    rates_body,
    reservation_body,
    restrictions_body,
    search_body,
    snapshot,
)

ABSENT = {"hotel": "ACME-NOWHERE", "booking": "NOPE-BKG-1", "reservation": "NOPE-CM-1",
          "batch": str(uuid.UUID(int=7))}


# route -> (kind of id, pull or push key, call(client, headers, ident) -> response)
ROUTES = {
    "GET /mapping/hotels/{hotelCode}": ("hotel", "pull", lambda c, h, i: c.get(
        f"{API}/mapping/hotels/{i}", headers=h)),
    "POST /availability/rates": ("hotel", "pull", lambda c, h, i: c.post(
        f"{API}/availability/rates", json=rates_body(hotel_code=i), headers=h)),
    "POST /bookings/quote": ("hotel", "pull", lambda c, h, i: c.post(
        f"{API}/bookings/quote", json=quote_body(hotel_code=i), headers=h)),
    "POST /bookings": ("hotel", "pull", lambda c, h, i: c.post(
        f"{API}/bookings", json=booking_body("HOSTILE-1", hotel_code=i), headers=h)),
    "GET /bookings/{reference}": ("booking", "pull", lambda c, h, i: c.get(
        f"{API}/bookings/{i}", headers=h)),
    "POST /bookings/{reference}/cancel": ("booking", "pull", lambda c, h, i: c.post(
        f"{API}/bookings/{i}/cancel", json={}, headers=h)),
    "PUT /ari": ("hotel", "push", lambda c, h, i: c.put(
        f"{API}/ari", json=ari_body(i), headers=h)),
    "PUT /ari/restrictions": ("hotel", "push", lambda c, h, i: c.put(
        f"{API}/ari/restrictions", json=restrictions_body(i), headers=h)),
    "GET /ari/batches/{batchId}": ("batch", "push", lambda c, h, i: c.get(
        f"{API}/ari/batches/{i}", headers=h)),
    "POST /reservations": ("hotel", "push", lambda c, h, i: c.post(
        f"{API}/reservations", json=reservation_body("HOSTILE-CM", hotel_code=i), headers=h)),
}

# Contract section 8: a cancel or modify of a reservation never received is accepted for the
# caller (an orphan / unknown modification of its own).
PUSH_DELIVERIES = {
    "POST /reservations/{reference}/cancel": lambda c, h, i: c.post(
        f"{API}/reservations/{i}/cancel", json={}, headers=h),
    "POST /reservations/{reference}/modify": lambda c, h, i: c.post(
        f"{API}/reservations/{i}/modify", json=modify_body(), headers=h),
}

CALLERS = ("globex", "acme-production")


def real_id(world, kind: str) -> str:
    return {"hotel": "ACME-LIS", "booking": world.booking_reference,
            "reservation": world.reservation_reference, "batch": world.batch_id}[kind]


def comparable(response, ident: str) -> dict:
    """The body with the request id dropped and the id asked for replaced by a placeholder."""
    body = response.get_json()
    body.pop("request_id", None)
    return json.loads(json.dumps(body).replace(ident, "{id}"))


def shape(value, key=None):
    """The structure of a body: its keys, booleans, codes and statuses, not its other values
    (acknowledgements, timestamps and amounts differ between any two deliveries)."""
    if isinstance(value, dict):
        return {k: shape(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v) for v in value]
    if isinstance(value, bool) or value is None or key in ("code", "status"):
        return value
    return type(value).__name__


def partner_id(db, code: str) -> int:
    return db.run(lambda c: c.execute("SELECT id FROM partners WHERE code = %s",
                                      (code,)).fetchone()["id"])


@pytest.mark.parametrize("route", list(ROUTES))
@pytest.mark.parametrize("caller", CALLERS)
def test_acmes_ids_answer_as_absent_ones_and_change_nothing(client, services, keys, acme_world,
                                                            caller, route):
    kind, key, call = ROUTES[route]
    pull, push = keys.hostile()[caller]
    headers = pull if key == "pull" else push
    absent = call(client, headers, ABSENT[kind])
    before = snapshot(services.database_url)
    real = call(client, headers, real_id(acme_world, kind))
    gone, new = changes(before, snapshot(services.database_url))
    assert (gone, new) == ({}, {}), route

    assert_envelope_failure(real, 404, "not_found")
    assert real.status_code == absent.status_code
    assert comparable(real, real_id(acme_world, kind)) == comparable(absent, ABSENT[kind])


@pytest.mark.parametrize("caller", CALLERS)
def test_search_lists_acmes_codes_as_unknown(client, keys, acme_world, services, caller):
    pull, _ = keys.hostile()[caller]
    before = snapshot(services.database_url)
    real = assert_envelope_success(client.post(
        f"{API}/availability/search", json=search_body(hotel_codes=["ACME-LIS", "ACME-OPO"]),
        headers=pull))
    absent = assert_envelope_success(client.post(
        f"{API}/availability/search", json=search_body(hotel_codes=["NOPE-1", "NOPE-2"]),
        headers=pull))
    assert sorted(real["unknown_hotel_codes"]) == ["ACME-LIS", "ACME-OPO"]
    assert json.dumps(real).replace("ACME-LIS", "NOPE-1").replace("ACME-OPO", "NOPE-2") \
        == json.dumps(absent)
    assert changes(before, snapshot(services.database_url)) == ({}, {})


@pytest.mark.parametrize("route", list(PUSH_DELIVERIES))
@pytest.mark.parametrize("caller", CALLERS)
def test_a_delivery_for_acmes_reservation_is_the_callers_own(client, db, services, keys,
                                                             acme_world, caller, route):
    call = PUSH_DELIVERIES[route]
    _, push = keys.hostile()[caller]
    absent = assert_envelope_success(call(client, push, ABSENT["reservation"]))
    before = snapshot(services.database_url)
    real = assert_envelope_success(call(client, push, acme_world.reservation_reference))
    gone, new = changes(before, snapshot(services.database_url))

    assert gone == {}, "a row of acme's changed"
    assert set(new) <= {"reservations", "reservation_claims", "reservation_versions",
                        "reconciliation_items", "event_log"}, new
    [row] = [json.loads(r) for r in new["reservations"]]
    owner = ("globex", "sandbox") if caller == "globex" else ("acme", "production")
    assert (row["partner_id"], row["environment"]) == (partner_id(db, owner[0]), owner[1])
    # the reconciliation item's reservation.flagged event: in the caller's log, never acme's
    events = [json.loads(r) for r in new.get("event_log", ())]
    assert {(e["partner_id"], e["environment"]) for e in events} <= \
        {(partner_id(db, owner[0]), owner[1])}
    assert row["partner_reference"] == acme_world.reservation_reference
    assert shape(real) == shape(absent)
    shown = real["reservation"]
    assert shown["received"] is False and shown["guests"] is None  # nothing of acme's shows
    assert "ACME-LIS" not in json.dumps(real)


def test_a_reference_of_acme_is_a_new_booking_of_globex(client, db, services, keys, acme_world):
    """The idempotency key is per partner: globex's ACME-BKG-1 is its own booking, never a
    replay of acme's."""
    before = snapshot(services.database_url)
    data = assert_envelope_success(client.post(f"{API}/bookings", json=booking_body(
        acme_world.booking_reference, hotel_code="GLX-LIS", room_type_code="GLX-DBL",
        rate_plan_code="GLX-BAR"), headers=keys.globex_pull), 201)
    assert data["idempotent_replay"] is False
    assert data["booking"]["hotel_code"] == "GLX-LIS"
    gone, new = changes(before, snapshot(services.database_url))
    assert set(gone) == {"room_type_days"}  # the shared property's inventory, and only it
    acme = partner_id(db, "acme")
    assert not any(json.loads(r).get("partner_id") == acme for rows in new.values() for r in rows)
    mine = assert_envelope_success(client.get(f"{API}/bookings/ACME-BKG-1",
                                              headers=keys.acme_pull))
    assert mine["booking"]["hotel_code"] == "ACME-LIS"
