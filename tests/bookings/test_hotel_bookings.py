"""GET /hotel-bookings and GET /hotel-bookings/{confirmationNumber} (contract 13.2): the bookings
other partners made on the hotels the caller receives bookings for, in its codes exactly as the
hotel_booking.* events give them, with the hotel's acknowledgement; filters, pages, and what is
answered as absent."""

from __future__ import annotations

import json

import pytest
from flask import g

from connectivity.bookings import hotel_routes
from connectivity.bookings.hotel_schemas import HotelBookingListSchema
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.web.envelope import enveloped
from tests.bookings.conftest import API, GLOBEX, booking_body
from tests.events.conftest import read_events
from tests.support.ari_days import set_plan_days
from tests.support.envelope import assert_envelope_failure, assert_envelope_success

ACKNOWLEDGEMENT = {"acknowledged", "acknowledged_at", "hotel_confirmation_code",
                   "guest_data_purged", "guest_data_purged_at"}


@pytest.fixture
def hotel(issue, catalog):
    """lisboa-cm's push key: the demo catalogue makes it LIS1's receiver (CM-* codes)."""
    key = issue("push", partner="lisboa-cm", signed=False, rate_limit=100_000)
    return {"Authorization": f"Bearer {key.token}"}


def book(client, headers, reference, total="100.00", **fields) -> dict:
    """One night, so that LIS1's five DBL rooms hold every booking of a test."""
    return assert_envelope_success(client.post(f"{API}/bookings", json=booking_body(
        reference, nights=1, total=total, **fields), headers=headers), 201)["booking"]


def hotel_bookings(client, headers, query: str = "", limit: int = 2) -> list[dict]:
    """Every page of GET /hotel-bookings with `query`, following the cursor."""
    found, cursor = [], None
    while True:
        url = f"{API}/hotel-bookings?limit={limit}{query}" + (f"&cursor={cursor}" if cursor
                                                              else "")
        data = assert_envelope_success(client.get(url, headers=headers))
        found += data["hotel_bookings"]
        assert (data["next_cursor"] is None) == (not data["has_more"])
        if not data["has_more"]:
            return found
        cursor = data["next_cursor"]


def acknowledge(client, headers, number, status="confirmed", **fields):
    return client.post(f"{API}/hotel-bookings/{number}/acknowledge",
                       json={"status": status, **fields}, headers=headers)


def test_a_hotel_booking_is_the_event_in_the_receivers_codes_with_its_acknowledgement(
        client, db, pull, hotel, lisbon):
    made = book(client, pull, "HB-1")
    # Residents: a plan lisboa-cm maps no code for.
    set_plan_days(db, "LIS1", "DBL", "RES", lisbon, rate="95.00")
    res = book(client, pull, "HB-2", rate_plan_code="ACME-RES", total="95.00")
    events = read_events(client, db, hotel)
    by_number = {e["data"]["booking"]["confirmation_number"]: e["data"]["booking"]
                 for e in events}
    listed = hotel_bookings(client, hotel)
    assert [b["confirmation_number"] for b in listed] == [made["confirmation_number"],
                                                          res["confirmation_number"]]
    for booking in listed:
        event = by_number[booking["confirmation_number"]]
        assert {k: v for k, v in booking.items() if k not in ACKNOWLEDGEMENT} == event
        assert (booking["acknowledged"], booking["acknowledged_at"],
                booking["hotel_confirmation_code"]) == (False, None, None)
        assert (booking["guest_data_purged"], booking["guest_data_purged_at"]) == (False, None)
        one = assert_envelope_success(client.get(
            f"{API}/hotel-bookings/{booking['confirmation_number']}", headers=hotel))
        assert one == {"hotel_booking": booking}
    assert (listed[0]["hotel_code"], listed[0]["room_type_code"],
            listed[0]["rate_plan_code"]) == ("CM-LIS", "CM-DBL", "CM-BAR")
    # Unmapped stays as the event says it.
    assert (listed[1]["rate_plan_code"], listed[1]["unmapped"]) == (None, ["rate_plan"])
    assert listed[0]["channel_name"] == "Acme Travel"


def test_filters_and_pages(client, pull, hotel, lisbon):
    numbers = [book(client, pull, f"HB-{i}")["confirmation_number"] for i in range(5)]
    assert client.post(f"{API}/bookings/HB-1/cancel", json={}, headers=pull).status_code == 200
    for number in numbers[2:4]:
        assert acknowledge(client, hotel, number).status_code == 200

    def listed(query=""):
        return [b["confirmation_number"] for b in hotel_bookings(client, hotel, query)]
    assert listed() == numbers
    assert listed("&status=cancelled") == [numbers[1]]
    assert listed("&acknowledged=true") == numbers[2:4]
    assert listed("&acknowledged=false") == [numbers[0], numbers[1], numbers[4]]
    assert listed("&acknowledged=false&status=confirmed") == [numbers[0], numbers[4]]
    assert listed("&hotel_code=CM-LIS&acknowledged=false") == [numbers[0], numbers[1],
                                                                numbers[4]]
    assert listed("&hotel_code=NOT-MINE") == []  # not mapped: empty, not 404
    first = assert_envelope_success(client.get(f"{API}/hotel-bookings?limit=1",
                                               headers=hotel))
    error = assert_envelope_failure(client.get(
        f"{API}/hotel-bookings?limit=1&status=confirmed&cursor={first['next_cursor']}",
        headers=hotel), 422, "validation_failed")
    assert list(error["details"]["fields"]) == ["cursor"]


def test_a_cursor_of_the_bookings_list_is_foreign_here(client, pull, hotel, lisbon):
    for i in range(2):
        book(client, pull, f"HB-{i}")
    bookings_cursor = assert_envelope_success(client.get(f"{API}/bookings?limit=1",
                                                         headers=pull))["next_cursor"]
    error = assert_envelope_failure(client.get(
        f"{API}/hotel-bookings?cursor={bookings_cursor}", headers=hotel), 422,
        "validation_failed")
    assert "not a cursor of this list" in error["details"]["fields"]["cursor"][0]


def test_only_the_receiver_sees_them_and_never_its_own(client, db, issue, pull, hotel, lisbon):
    made = book(client, pull, "HB-1")
    number = made["confirmation_number"]
    # globex maps LIS1 without receiving its bookings; its own pull booking is not a hotel
    # booking of anyone it receives.
    db.run(load_catalog, parse_catalog(GLOBEX))
    globex_push = {"Authorization": "Bearer " + issue(
        "push", partner="globex", signed=False).token}
    assert hotel_bookings(client, globex_push) == []
    assert hotel_bookings(client, globex_push, "&hotel_code=GLX-LIS") == []  # mapped, not received
    assert_envelope_failure(client.get(f"{API}/hotel-bookings/{number}", headers=globex_push),
                            404, "not_found")
    assert_envelope_failure(acknowledge(client, globex_push, number), 404, "not_found")
    # The receiver's own pull booking on the hotel it receives.
    cm_pull = {"Authorization": "Bearer " + issue("pull", partner="lisboa-cm").token}
    own = book(client, cm_pull, "CM-OWN", hotel_code="CM-LIS", room_type_code="CM-DBL",
               rate_plan_code="CM-BAR")
    assert [b["confirmation_number"] for b in hotel_bookings(client, hotel)] == [number]
    assert_envelope_failure(client.get(f"{API}/hotel-bookings/{own['confirmation_number']}",
                                       headers=hotel), 404, "not_found")
    assert_envelope_failure(client.get(f"{API}/hotel-bookings/PCS-000000000000",
                                       headers=hotel), 404, "not_found")


# lisboa-cm also receives the bookings of a production hotel.
PRODUCTION = json.dumps({
    "properties": [{"code": "PRD1", "name": "Prod Hotel", "environment": "production",
                    "country": "PT", "timezone": "Europe/Lisbon", "currency": "EUR",
                    "max_child_age": 10, "rate_plans": [],
                    "room_types": [{"code": "DBL", "name": "Double", "max_occupancy": 2}]}],
    "partners": [{"code": "lisboa-cm", "name": "Lisboa Channel Manager", "mappings": [
        {"property": "PRD1", "hotel_code": "CM-PRD", "receives_bookings": True,
         "room_types": {"DBL": "CM-PRD-DBL"}}]}]})


def test_another_environment_sees_nothing(client, db, issue, pull, hotel, lisbon):
    number = book(client, pull, "HB-1")["confirmation_number"]
    db.run(load_catalog, parse_catalog(PRODUCTION))
    live = {"Authorization": "Bearer " + issue("push", partner="lisboa-cm",
                                               environment="production", signed=False).token}
    assert hotel_bookings(client, live) == []
    assert_envelope_failure(client.get(f"{API}/hotel-bookings/{number}", headers=live), 404,
                            "not_found")


def test_scope_and_input(client, pull, hotel, lisbon):
    number = book(client, pull, "HB-1")["confirmation_number"]
    assert_envelope_failure(client.get(f"{API}/hotel-bookings", headers=pull), 403,
                            "insufficient_scope")
    assert_envelope_failure(acknowledge(client, pull, number), 403, "insufficient_scope")
    for query, field in (("acknowledged=yes", "acknowledged"), ("acknowledged=1", "acknowledged"),
                         ("status=pending", "status"), ("limit=201", "limit")):
        error = assert_envelope_failure(client.get(f"{API}/hotel-bookings?{query}",
                                                   headers=hotel), 422, "validation_failed")
        assert list(error["details"]["fields"]) == [field]
    # A path segment that is no confirmation number matches no route.
    assert_envelope_failure(client.get(f"{API}/hotel-bookings/pcs-lowercase00",
                                       headers=hotel), 404, "not_found")


def test_the_page_is_written_as_its_schema_dumps_it(app, client, db, pull, hotel, lisbon,
                                                    monkeypatch):
    """GET /hotel-bookings answers without a schema dump (web/ready_body.py): the body equals
    HotelBookingListSchema's dump of the same page, as JSON text (an amount stays a number, a
    whole one an integer), purged bookings, cancellations and acknowledgements included."""
    numbers = [book(client, pull, f"HB-{i}")["confirmation_number"] for i in range(3)]
    assert client.post(f"{API}/bookings/HB-1/cancel", json={}, headers=pull).status_code == 200
    assert acknowledge(client, hotel, numbers[2], hotel_confirmation_code="H-2").status_code == 200
    db.run(lambda conn: conn.execute(
        "UPDATE bookings SET guests = '[]', contact = '{}', guest_data_purged_at = now() "
        "WHERE partner_reference = 'HB-0'"))
    pages = []
    real = hotel_routes.listing

    def recording(*args):
        pages.append(real(*args))
        return pages[-1]
    monkeypatch.setattr(hotel_routes, "listing", recording)
    for query in ("", "?acknowledged=false", "?limit=1"):
        response = client.get(f"{API}/hotel-bookings{query}", headers=hotel)
        assert response.status_code == 200, response.json
        with app.test_request_context():
            g.request_id = response.json["request_id"]
            dumped = enveloped(HotelBookingListSchema)().dump(pages[-1])
        assert json.dumps(response.json, sort_keys=True) == json.dumps(dumped, sort_keys=True)
    assert len(pages[0]["hotel_bookings"]) == 3
