"""The hotel's acknowledgement under concurrency (contract 13.2), through the real app: racing
acknowledgements store one and write one booking.hotel_confirmed; an acknowledgement racing the
booking partner's cancel either acknowledges the status it names or gets `status_changed`,
never a mix. The order is forced where it matters: a session holds the booking's row lock while
the requests queue behind it (seen waiting, tests/support/lockwaits.py), then lets them go in
the order they queued. These fail if the acknowledgement decides in Python on a status it read
before its UPDATE."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import psycopg

from tests.bookings.conftest import API
from tests.bookings.test_acknowledge import hotel_confirmed
from tests.bookings.test_concurrency import THREADS, together, wide_app  # noqa: F401 - fixture
from tests.bookings.test_hotel_bookings import acknowledge, book, hotel  # noqa: F401 - fixture
from tests.support import lockwaits
from tests.support.envelope import assert_envelope_success

ACKNOWLEDGING = "WITH held AS MATERIALIZED"
CANCELLING = "SET status = 'cancelled'"


@contextmanager
def row_held(settings, number: str):
    """The booking's row locked by a session of the test's own until the block ends (on Citus a
    router statement on the booking's shard: the hotel is named)."""
    with psycopg.connect(settings.database_url) as holder:
        [lis1] = holder.execute("SELECT id FROM properties WHERE code = 'LIS1'").fetchone()
        holder.execute("SELECT 1 FROM bookings WHERE property_id = %s AND confirmation_number = "
                       "%s FOR UPDATE", (lis1, number))
        yield
        holder.commit()


class Queued:
    """A request started on its own thread and its own test client; `wait_queued` returns once
    its statement waits for a lock."""

    def __init__(self, app, settings, call, waits_in: str):
        self._settings, self._waits_in = settings, waits_in
        self.response = None
        self._thread = threading.Thread(target=self._run, args=(app, call))
        self._thread.start()

    def _run(self, app, call):
        self.response = call(app.test_client())

    def wait_queued(self, count: int = 1) -> None:
        for _ in range(1000):
            if len(lockwaits.waiting(self._settings.database_url,
                                     query_has=self._waits_in)) >= count:
                return
            threading.Event().wait(0.01)
        raise AssertionError(f"no request waited in {self._waits_in!r}")

    def result(self):
        self._thread.join(30)
        assert self.response is not None, "the request did not finish"
        return self.response.status_code, self.response.get_json()


def current(client, hotel, number) -> dict:
    return assert_envelope_success(client.get(f"{API}/hotel-bookings/{number}",
                                              headers=hotel))["hotel_booking"]


def test_two_acknowledgements_at_once_store_one_and_announce_once(app, client, db, settings, pull,
                                                                  hotel, lisbon):
    number = book(client, pull, "RACE-1")["confirmation_number"]
    with row_held(settings, number):
        first = Queued(app, settings, lambda c: acknowledge(
            c, hotel, number, hotel_confirmation_code="R-1"), ACKNOWLEDGING)
        first.wait_queued()
        second = Queued(app, settings, lambda c: acknowledge(
            c, hotel, number, hotel_confirmation_code="R-1"), ACKNOWLEDGING)
        second.wait_queued(2)
    (status_1, body_1), (status_2, body_2) = first.result(), second.result()
    assert (status_1, status_2) == (200, 200)
    assert body_1["data"] == body_2["data"]
    assert body_1["data"]["hotel_booking"]["acknowledged"] is True
    assert len(hotel_confirmed(client, db, pull)) == 1


def test_a_crowd_of_acknowledgements_stores_one(wide_app, client, db, pull, hotel, lisbon):
    number = book(client, pull, "RACE-1")["confirmation_number"]
    results = together(wide_app, [
        lambda c: acknowledge(c, hotel, number, hotel_confirmation_code="R-1")] * THREADS)
    assert {status for status, _ in results} == {200}
    assert len({repr(body["data"]) for _, body in results}) == 1
    assert len(hotel_confirmed(client, db, pull)) == 1


def test_an_acknowledgement_queued_behind_a_cancel_is_status_changed(app, client, db, settings,
                                                                     pull, hotel, lisbon):
    number = book(client, pull, "RACE-1")["confirmation_number"]
    before = current(client, hotel, number)
    with row_held(settings, number):
        cancel = Queued(app, settings, lambda c: c.post(f"{API}/bookings/RACE-1/cancel",
                                                        json={}, headers=pull), CANCELLING)
        cancel.wait_queued()
        ack = Queued(app, settings, lambda c: acknowledge(
            c, hotel, number, hotel_confirmation_code="R-1"), ACKNOWLEDGING)
        ack.wait_queued()
    assert cancel.result()[0] == 200
    status, body = ack.result()
    assert status == 409, body
    assert (body["error"]["code"], body["error"]["details"]) == ("status_changed",
                                                                 {"status": "cancelled"})
    after = current(client, hotel, number)
    assert after["status"] == "cancelled"
    assert {k: after[k] for k in ("acknowledged", "acknowledged_at", "hotel_confirmation_code")
            } == {k: before[k] for k in ("acknowledged", "acknowledged_at",
                                         "hotel_confirmation_code")}
    assert hotel_confirmed(client, db, pull) == []


def test_a_cancellations_acknowledgement_queued_behind_the_cancel_acknowledges_it(
        app, client, db, settings, pull, hotel, lisbon):
    """The acknowledgement is judged on the row the cancel left, not on the row its statement's
    snapshot showed when it started waiting (where the booking was still confirmed)."""
    number = book(client, pull, "RACE-1")["confirmation_number"]
    with row_held(settings, number):
        cancel = Queued(app, settings, lambda c: c.post(f"{API}/bookings/RACE-1/cancel",
                                                        json={}, headers=pull), CANCELLING)
        cancel.wait_queued()
        ack = Queued(app, settings, lambda c: acknowledge(c, hotel, number, "cancelled"),
                     ACKNOWLEDGING)
        ack.wait_queued()
    assert cancel.result()[0] == 200
    status, body = ack.result()
    assert status == 200, body
    acknowledged = body["data"]["hotel_booking"]
    assert (acknowledged["status"], acknowledged["acknowledged"]) == ("cancelled", True)
    assert current(client, hotel, number) == acknowledged
    assert hotel_confirmed(client, db, pull) == []


def test_a_cancel_queued_behind_an_acknowledgement_leaves_it_to_acknowledge_again(
        app, client, db, settings, pull, hotel, lisbon):
    number = book(client, pull, "RACE-1")["confirmation_number"]
    with row_held(settings, number):
        ack = Queued(app, settings, lambda c: acknowledge(
            c, hotel, number, hotel_confirmation_code="R-1"), ACKNOWLEDGING)
        ack.wait_queued()
        cancel = Queued(app, settings, lambda c: c.post(f"{API}/bookings/RACE-1/cancel",
                                                        json={}, headers=pull), CANCELLING)
        cancel.wait_queued()
    status, body = ack.result()
    assert status == 200, body
    acknowledged = body["data"]["hotel_booking"]
    assert (acknowledged["status"], acknowledged["acknowledged"]) == ("confirmed", True)
    assert cancel.result()[0] == 200
    after = current(client, hotel, number)
    assert (after["status"], after["acknowledged"], after["hotel_confirmation_code"]) == (
        "cancelled", False, "R-1")
    assert len(hotel_confirmed(client, db, pull)) == 1


def test_a_crowd_racing_a_cancel_never_mixes_states(wide_app, client, db, pull, hotel, lisbon):
    """Every answer acknowledges the status it named or is status_changed naming the other, and
    one announcement at most: the first acknowledgement stored gives the code (every one sends
    the same), whatever its status, and no later one changes it."""
    number = book(client, pull, "RACE-1")["confirmation_number"]
    named = ["confirmed", "cancelled"] * (THREADS // 2 - 1)
    calls = [lambda c, s=status: acknowledge(c, hotel, number, s, hotel_confirmation_code="R-1")
             for status in named]
    calls.append(lambda c: c.post(f"{API}/bookings/RACE-1/cancel", json={}, headers=pull))
    results = together(wide_app, calls)
    assert results[-1][0] == 200
    stored = False
    for status_named, (status, body) in zip(named, results):
        if status == 200:
            booking = body["data"]["hotel_booking"]
            assert (booking["status"], booking["acknowledged"]) == (status_named, True), body
            stored = True
        else:
            assert (status, body["error"]["code"]) == (409, "status_changed"), body
            assert body["error"]["details"]["status"] != status_named
    after = current(client, hotel, number)
    assert after["status"] == "cancelled"
    assert after["hotel_confirmation_code"] == ("R-1" if stored else None)
    assert len(hotel_confirmed(client, db, pull)) == (1 if stored else 0)
