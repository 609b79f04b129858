"""Guest data that expires (`privacy purge`, docs/operations.md "Guest data that expires"):
the personal fields of bookings and pushed reservations whose stay ended more than N days ago
are replaced and the rows marked; the commercial record stays; chunked, idempotent, and the
answers say `guest_data_purged` rather than showing the fields empty. The booking's events and
their webhook deliveries follow it: GET /events and a replayed delivery show them purged."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time

import psycopg
import pytest
from standardwebhooks import Webhook

from connectivity.auth.credentials import SigningVault
from connectivity.operator.privacy import purge_cutoff, purge_guest_data
from connectivity.webhooks.delivering import Senders
from devtools.webhook_receiver import receiver
from tests.events.conftest import read_events
from tests.operator.conftest import output_of
from tests.support import lockwaits
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates
from tests.support.envelope import API, assert_envelope_success
from tests.support.signing import bearer
from tests.webhooks.conftest import ENDPOINTS, created
from tests.webhooks.delivery import run_rounds

START = dt.date.today() + dt.timedelta(days=5)
PERSONAL = ("guests", "contact", "special_requests")


def _after(day: dt.date, days: int = 365) -> dt.datetime:
    """A moment when stays that ended before `day` are more than `days` days past."""
    return dt.datetime.combine(day + dt.timedelta(days=days), dt.time(12),
                               tzinfo=dt.timezone.utc)


@pytest.fixture
def pull(issue, catalog, db):
    nights = stay_dates(START, 8)
    set_room_days(db, "LIS1", "DBL", nights, available=20)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    return bearer(issue("pull", rate_limit=100000).token)


@pytest.fixture
def push(issue, catalog):
    return bearer(issue("push", signed=False, rate_limit=100000).token)


def book(client, headers, reference: str, offset: int = 0) -> dict:
    check_in = START + dt.timedelta(days=offset)
    return assert_envelope_success(client.post(f"{API}/bookings", headers=headers, json={
        "partner_reference": reference, "hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL",
        "rate_plan_code": "ACME-BAR", "check_in": check_in.isoformat(),
        "check_out": (check_in + dt.timedelta(days=2)).isoformat(), "rooms": 1,
        "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                    "is_adult": True, "nationality": "PT", "is_lead": True}],
        "contact": {"first_name": "Ana", "email": "ana@example.com", "phone": "+351 1"},
        "special_requests": "Ana Silva, allergic to feathers", "arrival_time": "15:30",
        "total_amount": "200.00", "currency": "EUR"}), 201)["booking"]


def read_booking(client, headers, reference: str) -> dict:
    return assert_envelope_success(client.get(f"{API}/bookings/{reference}",
                                              headers=headers))["booking"]


def stored_bookings(db) -> dict[str, dict]:
    return {r["partner_reference"]: r for r in db.run(lambda conn: conn.execute(
        "SELECT partner_reference, guests, contact, nationality, special_requests, "
        "cancel_reason, guest_data_purged_at, total_amount, nights, check_in, check_out, "
        "request_hash FROM bookings").fetchall())}


def test_a_booking_whose_stay_ended_long_ago_loses_its_guest_data_only(client, pull, db):
    ended = book(client, pull, "OLD")                 # check-out START + 2
    current = book(client, pull, "NEW", offset=4)     # check-out START + 6
    now = _after(START + dt.timedelta(days=3))
    stored_before = stored_bookings(db)

    report = purge_guest_data(db, after_checkout_days=365, now=now)
    assert (report.bookings, report.reservations, report.hotels) == (1, 0, 1)
    assert report.cutoff == START + dt.timedelta(days=3)

    purged = read_booking(client, pull, "OLD")
    assert purged["guest_data_purged"] is True
    assert dt.datetime.fromisoformat(purged["guest_data_purged_at"]) == now
    assert all(purged[name] is None for name in PERSONAL)
    # The commercial record: everything else as it was answered at booking.
    kept = {k: v for k, v in ended.items() if k not in PERSONAL + ("guest_data_purged",
                                                                   "guest_data_purged_at")}
    assert {k: purged[k] for k in kept} == kept
    assert ended["guest_data_purged"] is False and ended["guest_data_purged_at"] is None

    assert read_booking(client, pull, "NEW") == current
    stored = stored_bookings(db)
    assert stored["OLD"]["guests"] == [] and stored["OLD"]["contact"] == {}
    assert stored["OLD"]["nationality"] is None and stored["OLD"]["special_requests"] is None
    for column in ("total_amount", "nights", "check_in", "check_out", "request_hash"):
        assert stored["OLD"][column] == stored_before["OLD"][column]
    assert stored["NEW"] == stored_before["NEW"]

    # Idempotent: nothing more to purge, the first purge's time stays.
    again = purge_guest_data(db, after_checkout_days=365, now=now + dt.timedelta(days=1))
    assert (again.bookings, again.reservations, again.hotels) == (0, 0, 0)
    assert stored_bookings(db)["OLD"]["guest_data_purged_at"] == now


def test_a_cancelled_booking_loses_its_cancel_reason_too(client, pull, db):
    book(client, pull, "CXL")
    assert_envelope_success(client.post(f"{API}/bookings/CXL/cancel", headers=pull,
                                        json={"reason": "Ana Silva is ill"}))
    purge_guest_data(db, after_checkout_days=365, now=_after(START + dt.timedelta(days=3)))
    stored = stored_bookings(db)["CXL"]
    assert stored["cancel_reason"] is None and stored["guest_data_purged_at"] is not None
    answer = read_booking(client, pull, "CXL")
    assert answer["status"] == "cancelled" and answer["penalty_amount"] is not None
    assert answer["guest_data_purged"] is True


def test_a_booking_cancelled_after_its_purge_keeps_no_reason(client, pull, db):
    book(client, pull, "LATE")
    purge_guest_data(db, after_checkout_days=365, now=_after(START + dt.timedelta(days=3)))
    cancelled = assert_envelope_success(client.post(
        f"{API}/bookings/LATE/cancel", headers=pull, json={"reason": "Ana Silva moved"}))
    assert cancelled["booking"]["status"] == "cancelled"
    assert cancelled["booking"]["guest_data_purged"] is True
    assert stored_bookings(db)["LATE"]["cancel_reason"] is None


def test_a_cancel_in_flight_is_kept_and_its_reason_purged_after_it(client, pull, db, services):
    """The purge waits for a booking a concurrent cancel holds, then judges the row as the
    cancel committed it: the cancellation stands, and the reason it wrote is purged too."""
    book(client, pull, "BUSY")
    now = _after(START + dt.timedelta(days=3))
    with psycopg.connect(services.database_url) as cancel:
        cancel.execute(
            "UPDATE bookings SET status = 'cancelled', cancelled_at = now(), penalty_amount = 0, "
            "cancel_reason = 'Ana Silva is ill' WHERE partner_reference = 'BUSY'")
        outcome = {}
        purge = threading.Thread(target=lambda: outcome.update(
            report=purge_guest_data(db, after_checkout_days=365, now=now)))
        purge.start()
        deadline = time.monotonic() + 30
        while not lockwaits.waiting(services.database_url, query_has="guest_data_purged_at"):
            assert purge.is_alive() and time.monotonic() < deadline, "the purge never waited"
            time.sleep(0.05)
        cancel.commit()
    purge.join(30)
    assert outcome["report"].bookings == 1
    stored = db.run(lambda conn: conn.execute(
        "SELECT status, penalty_amount, cancel_reason, guest_data_purged_at FROM bookings "
        "WHERE partner_reference = 'BUSY'").fetchone())
    assert stored == {"status": "cancelled", "penalty_amount": 0, "cancel_reason": None,
                      "guest_data_purged_at": now}


class CountingDatabase:
    """The test database, counting the transactions of each use case step."""

    def __init__(self, db):
        self._db = db
        self.runs: list[str] = []

    def run(self, use_case, *args, **kwargs):
        self.runs.append(use_case.__name__)
        return self._db.run(use_case, *args, **kwargs)


def test_the_purge_runs_in_chunks_of_its_own_transactions(client, pull, push, db):
    for i in range(5):
        book(client, pull, f"B{i}")
    for i in range(3):
        push_past(client, push, f"R{i}", ended_days_ago=400)
    counting = CountingDatabase(db)
    report = purge_guest_data(counting, after_checkout_days=365,
                              now=_after(START + dt.timedelta(days=3)), chunk_size=2)
    # Each booking's event and its hotel receiver's (lisboa-cm, demo catalogue).
    assert (report.bookings, report.reservations, report.events) == (5, 3, 10)
    # 2 + 2 + 1 bookings, 2 + 1 reservations, 5 x 2 events and an empty last chunk: each chunk
    # its own transaction.
    assert counting.runs.count("_purge_bookings") == 3
    assert counting.runs.count("_purge_events") == 6
    assert counting.runs.count("_purge_reservations") == 2
    assert all(r["guest_data_purged_at"] is not None for r in stored_bookings(db).values())


# --- pushed reservations ---------------------------------------------------------------------

def push_past(client, headers, reference: str, *, ended_days_ago: int, **fields) -> dict:
    check_out = dt.date.today() - dt.timedelta(days=ended_days_ago)
    check_in = check_out - dt.timedelta(days=2)
    body = {
        "partner_reference": reference, "guest_confirmation": "G-77", "hotel_code": "ACME-LIS",
        "status": "confirmed", "check_in": check_in.isoformat(),
        "check_out": check_out.isoformat(),
        "rooms": [{"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "quantity": 1,
                   "adults": 2}],
        "guests": [{"room_number": 1, "first_name": "Ana", "last_name": "Silva",
                    "is_adult": True, "nationality": "PT"}],
        "contact": {"email": "ana@example.com", "phone": "+351 900 000 000"},
        "special_requests": "Ana's birthday", "net_amount": "170.00", "net_currency": "EUR",
        **fields}
    response = client.post(f"{API}/reservations", headers=headers, json=body)
    assert response.status_code in (200, 201), response.get_data(as_text=True)
    return {"body": body, "answer": response.get_json()["data"]["reservation"]}


def stored_deliveries(db, reference: str) -> list[dict]:
    return db.run(lambda conn: conn.execute(
        "SELECT v.kind, v.payload FROM reservation_versions v JOIN reservations r "
        "ON r.property_id = v.property_id AND r.id = v.reservation_id "
        "WHERE r.partner_reference = %s ORDER BY v.version", (reference,)).fetchall())


def test_a_reservation_whose_stay_ended_long_ago_loses_its_guest_data_only(client, push, db):
    old = push_past(client, push, "CM-OLD", ended_days_ago=400)
    assert_envelope_success(client.post(f"{API}/reservations/CM-OLD/cancel", headers=push,
                                        json={"reason": "guest Ana Silva called"}))
    recent = push_past(client, push, "CM-NEW", ended_days_ago=10)
    now = dt.datetime.now(dt.timezone.utc)

    report = purge_guest_data(db, after_checkout_days=365, now=now)
    assert (report.bookings, report.reservations) == (0, 1)
    assert report.cutoff == purge_cutoff(now, 365)

    for kind, payload in ((d["kind"], d["payload"]) for d in stored_deliveries(db, "CM-OLD")):
        assert not set(payload) & {"guests", "contact", "special_requests", "reason"}, kind
        if kind == "create":
            assert payload["net_amount"] == "170.00" and payload["partner_reference"] == "CM-OLD"
    assert stored_deliveries(db, "CM-NEW")[0]["payload"] == recent["body"]

    # A redelivery is still a replay, answered with the purged reservation.
    replay = client.post(f"{API}/reservations", headers=push, json=old["body"])
    data = assert_envelope_success(replay)
    assert data["idempotent_replay"] is True
    shown = data["reservation"]
    assert shown["guest_data_purged"] is True and shown["guest_data_purged_at"] is not None
    assert all(shown[name] is None for name in PERSONAL)
    for name in ("check_in", "check_out", "rooms", "net_amount", "net_currency",
                 "guest_confirmation", "hotel_code", "partner_reference"):
        assert shown[name] == old["answer"][name], name
    assert shown["status"] == "cancelled"
    # A later modify still applies, and the guest data stays purged.
    modified = assert_envelope_success(client.post(
        f"{API}/reservations/CM-OLD/modify", headers=push, json={
            "check_in": old["body"]["check_in"], "check_out": old["body"]["check_out"],
            "rooms": [{"room_type_code": "ACME-DBL", "quantity": 1, "adults": 1}],
            "net_amount": "150.00", "net_currency": "EUR"}))["reservation"]
    assert modified["guest_data_purged"] is True and modified["guests"] is None
    # Nor do the redelivery, the modify and a late cancel bring the guest data back.
    assert_envelope_success(client.post(f"{API}/reservations/CM-OLD/cancel", headers=push,
                                        json={"reason": "Ana Silva again"}))
    deliveries = stored_deliveries(db, "CM-OLD")
    assert [d["kind"] for d in deliveries] == ["create", "cancel", "create", "modify", "cancel"]
    assert not any(set(d["payload"]) & {"guests", "contact", "special_requests", "reason"}
                   for d in deliveries)

    again = purge_guest_data(db, after_checkout_days=365, now=now)
    assert (again.bookings, again.reservations) == (0, 0)
    untouched = push_past(client, push, "CM-NEW", ended_days_ago=10)["answer"]
    assert untouched["guest_data_purged"] is False
    assert untouched["guests"] == recent["answer"]["guests"]


def test_the_cli_purges_after_the_days_given_or_the_setting(app, client, pull, push, db, cli):
    book(client, pull, "OLD")
    push_past(client, push, "CM-OLD", ended_days_ago=40)
    # The booking's stay moved back to have ended 400 days ago (bookings are made ahead only).
    db.run(lambda conn: conn.execute(
        "UPDATE bookings SET check_in = check_in - %s, check_out = check_out - %s",
        (400 + 7, 400 + 7)))
    # And so did its event's copy of it.
    db.run(lambda conn: conn.execute(
        "UPDATE event_log SET data = jsonb_set(data, '{booking,check_out}', %s::jsonb)",
        (json.dumps((START - dt.timedelta(days=400)).isoformat()),)))
    result = cli("privacy", "purge")  # PRIVACY_PURGE_AFTER_DAYS: 365
    assert result.exit_code == 0, output_of(result)
    assert ("1 booking(s) and 0 reservation(s) of 1 hotel(s), and of 2 event(s) and 0 webhook "
            "delivery(ies), whose stay ended before") in result.output
    result = cli("privacy", "purge", "--after-checkout-days", "30", "--chunk-size", "1")
    assert result.exit_code == 0, output_of(result)
    assert "0 booking(s) and 1 reservation(s)" in result.output
    assert "0 event(s)" in result.output
    assert cli("privacy", "purge", "--after-checkout-days", "0").exit_code != 0


# --- the booking's events and their webhook deliveries ----------------------------------------

@pytest.fixture
def hotel_receiver(issue, pull):
    """The push key of lisboa-cm, which receives LIS1's bookings (hotel_booking.*; demo
    catalogue)."""
    return bearer(issue("push", partner="lisboa-cm", signed=False, rate_limit=100000).token)


def booking_events(client, db, headers) -> dict[str, list[dict]]:
    """The key's booking events, by confirmation number, oldest first."""
    found: dict[str, list[dict]] = {}
    for event in read_events(client, db, headers):
        found.setdefault(event["data"]["booking"]["confirmation_number"], []).append(event)
    return found


def purged_as_read(event: dict, now: dt.datetime, *, personal=PERSONAL) -> dict:
    """`event` as it reads once purged at `now`: the personal fields null and the marker set
    (its time compared as a time, whatever offset it is written with)."""
    shown = {**event["data"]["booking"], **dict.fromkeys(personal), "guest_data_purged": True,
             "guest_data_purged_at": now}
    return {**event, "data": {**event["data"], "booking": shown}}


def as_times(event: dict) -> dict:
    booking = event["data"]["booking"]
    when = booking.get("guest_data_purged_at")
    return {**event, "data": {**event["data"], "booking": {
        **booking, "guest_data_purged_at": when and dt.datetime.fromisoformat(when)}}}


def test_a_bookings_events_are_purged_with_it_and_read_as_the_booking(
        client, pull, hotel_receiver, db):
    old = book(client, pull, "OLD")["confirmation_number"]
    assert_envelope_success(client.post(f"{API}/bookings/OLD/cancel", headers=pull,
                                        json={"reason": "Ana Silva is ill"}))
    new = book(client, pull, "NEW", offset=4)["confirmation_number"]
    booker, hotel = booking_events(client, db, pull), booking_events(client, db, hotel_receiver)
    assert [e["type"] for e in booker[old]] == ["booking.confirmed", "booking.cancelled"]
    assert [e["type"] for e in hotel[old]] == ["hotel_booking.confirmed",
                                               "hotel_booking.cancelled"]
    assert all("Ana" in json.dumps(e) for e in booker[old] + hotel[old])
    now = _after(START + dt.timedelta(days=3))

    report = purge_guest_data(db, after_checkout_days=365, now=now)
    assert (report.bookings, report.events, report.hotels) == (1, 4, 1)

    booker_after = booking_events(client, db, pull)
    hotel_after = booking_events(client, db, hotel_receiver)
    # The same events in the same places of the log, only their guest data gone.
    assert [as_times(e) for e in booker_after[old]] == [purged_as_read(e, now)
                                                         for e in booker[old]]
    assert [as_times(e) for e in hotel_after[old]] == [
        purged_as_read(e, now, personal=("guests", "contact")) for e in hotel[old]]
    assert not any("Ana" in json.dumps(e) for e in booker_after[old] + hotel_after[old])
    # The cancellation's event shows the booking as GET /bookings/{reference} does.
    assert as_times(booker_after[old][-1])["data"]["booking"] == as_times(
        {"data": {"booking": read_booking(client, pull, "OLD")}})["data"]["booking"]
    assert booker_after[new] == booker[new] and hotel_after[new] == hotel[new]

    # Idempotent: nothing more to purge, the first purge's time stays.
    again = purge_guest_data(db, after_checkout_days=365, now=now + dt.timedelta(days=1))
    assert (again.bookings, again.events, again.deliveries) == (0, 0, 0)
    assert booking_events(client, db, pull) == booker_after


@pytest.fixture
def senders(db, settings):
    made = Senders(db, SigningVault(settings.secret_key), (1, 1), concurrency=4, per_endpoint=2,
                   allow_loopback=True)
    yield made
    made.close()


def stored_bodies(db) -> dict[tuple[str, str], dict]:
    return {(r["endpoint_id"], r["event_id"]): json.loads(r["body"]) for r in db.run(
        lambda conn: conn.execute(
            "SELECT endpoint_id, event_id, body FROM webhook_deliveries").fetchall())}


def test_webhook_deliveries_are_purged_and_a_replay_sends_the_purged_event(
        client, pull, hotel_receiver, db, senders):
    with receiver() as booker_hook, receiver() as hotel_hook:
        booker = created(client, pull, booker_hook.url, ["booking.confirmed"])
        hotel = created(client, hotel_receiver, hotel_hook.url, ["hotel_booking.confirmed"])
        old = book(client, pull, "OLD")["confirmation_number"]
        book(client, pull, "NEW", offset=4)
        run_rounds(db, senders, lambda: len(booker_hook.received) == 2
                   and len(hotel_hook.received) == 2 and senders.in_flight() == 0, timeout=120)
        before = stored_bodies(db)
        now = _after(START + dt.timedelta(days=3))

        report = purge_guest_data(db, after_checkout_days=365, now=now)
        assert (report.events, report.deliveries) == (2, 2)

        # Each delivery keeps the event as GET /events now shows it; the other stay as they were.
        shown = {e["event_id"]: e for key in (pull, hotel_receiver)
                 for events in booking_events(client, db, key).values() for e in events}
        after = stored_bodies(db)
        purged = {k for k, body in before.items()
                  if body["data"]["booking"]["confirmation_number"] == old}
        assert len(purged) == 2
        for key, body in after.items():
            assert body == (shown[key[1]] if key in purged else before[key])
            assert ("Ana" in json.dumps(body)) is (key not in purged)

        replayed = []
        for headers, endpoint, hook in ((pull, booker, booker_hook),
                                        (hotel_receiver, hotel, hotel_hook)):
            endpoint_id = endpoint["endpoint"]["endpoint_id"]
            (event_id,) = [e for (d, e) in purged if d == endpoint_id]
            assert_envelope_success(client.post(
                f"{ENDPOINTS}/{endpoint_id}/deliveries/{event_id}/retry", headers=headers), 202)
            replayed.append((endpoint, hook, event_id))
        run_rounds(db, senders, lambda: len(booker_hook.received) == 3
                   and len(hotel_hook.received) == 3, timeout=120)
    for endpoint, hook, event_id in replayed:
        request = hook.received[-1]
        assert request.headers["webhook-id"] == event_id
        sent = Webhook(endpoint["secret"]).verify(request.body, request.headers)
        assert sent == shown[event_id] and sent["data"]["booking"]["guest_data_purged"] is True
        assert b"Ana" not in request.body

    again = purge_guest_data(db, after_checkout_days=365, now=now + dt.timedelta(days=1))
    assert (again.events, again.deliveries) == (0, 0)
    assert stored_bodies(db) == after


def test_a_hotel_booking_is_purged_and_keeps_the_hotels_acknowledgement(
        client, pull, hotel_receiver, db):
    """GET /hotel-bookings reads the same rows as GET /bookings: the purge blanks the guests
    there too, and the hotel's acknowledgement (its code, when) stays, as does the
    booking.hotel_confirmed event's, whose guest data goes with the other booking events."""
    old = book(client, pull, "OLD")["confirmation_number"]
    new = book(client, pull, "NEW", offset=4)["confirmation_number"]
    for number in (old, new):
        assert_envelope_success(client.post(
            f"{API}/hotel-bookings/{number}/acknowledge",
            json={"status": "confirmed", "hotel_confirmation_code": f"H-{number[-4:]}"},
            headers=hotel_receiver))

    def hotel_booking(number):
        return assert_envelope_success(client.get(f"{API}/hotel-bookings/{number}",
                                                  headers=hotel_receiver))["hotel_booking"]
    before = {number: hotel_booking(number) for number in (old, new)}
    confirmations = booking_events(client, db, pull)
    assert [e["type"] for e in confirmations[old]] == ["booking.confirmed",
                                                       "booking.hotel_confirmed"]
    now = _after(START + dt.timedelta(days=3))

    report = purge_guest_data(db, after_checkout_days=365, now=now)
    assert (report.bookings, report.events) == (1, 3)  # booking.*, hotel_confirmed, hotel_booking.*

    purged = hotel_booking(old)
    assert (purged["guests"], purged["contact"], purged["guest_data_purged"]) == (None, None,
                                                                                 True)
    assert dt.datetime.fromisoformat(purged["guest_data_purged_at"]) == now
    for kept in ("acknowledged", "acknowledged_at", "hotel_confirmation_code", "status",
                 "total_amount", "check_in", "hotel_code"):
        assert purged[kept] == before[old][kept]
    assert hotel_booking(new) == before[new]
    booking = read_booking(client, pull, "OLD")
    assert booking["hotel_confirmation_code"] == before[old]["hotel_confirmation_code"]
    assert booking["hotel_acknowledged_at"] == before[old]["acknowledged_at"]
    after = booking_events(client, db, pull)
    assert [as_times(e) for e in after[old]] == [purged_as_read(e, now)
                                                 for e in confirmations[old]]
    assert not any("Ana" in json.dumps(e) for e in after[old])
