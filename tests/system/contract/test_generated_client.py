"""A client nobody here wrote (issue 7, item 2): openapi-python-client generates a Python client
from the description the running service serves, and the specification's recommended call
order is driven through it end to end against a real HTTP server, as acme's pull key (bearer)
and its signed push key.

The generated client parses every response with the models the description declares, so a
field documented as required but missing, a type that is wrong or a status that is not listed
fails here; and a field the service returns that the description does not declare is dropped by
those models, which the test notices by comparing what was sent with what was parsed. If the
description is wrong, this test says so.

What the generated client cannot express from the description, and the test supplies:
- the request signature (contract section 2): the description's `signed` security scheme names
  only the X-Api-Key-Id header (OpenAPI 3.0 has no HMAC scheme), so the signature headers are
  added by an httpx request hook on the generated client's httpx client (`httpx_args`);
- amounts are typed `float` (the description says `number`): the client sends binary floats,
  which the service reads exactly as written in the JSON text; the contract's alternative of
  numeric strings is not in the description, so a generated client never uses it."""

from __future__ import annotations

import datetime as dt
import importlib
import json
import subprocess
import sys
import threading

import httpx
import pytest
from werkzeug.serving import make_server

from tests.support.signing import signed_headers

from tests.system.contract.conftest import DESCRIPTION_PATH

PACKAGE = "pcs_generated_client"
START = dt.date.today() + dt.timedelta(days=5)
NIGHTS = [START + dt.timedelta(days=i) for i in range(3)]


def day(offset: int) -> dt.date:
    return START + dt.timedelta(days=offset)


@pytest.fixture
def server(app):
    """The test application behind a real HTTP server on a free port of 127.0.0.1."""
    http = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_port}"
    http.shutdown()
    thread.join(timeout=10)


@pytest.fixture
def generated(server, tmp_path):
    """The client package generated from the served description, imported."""
    config = tmp_path / "generator.yml"
    # No post hooks: the generator's default runs ruff over the output, a formatter this test
    # does not need.
    config.write_text(f"package_name_override: {PACKAGE}\npost_hooks: []\n")
    result = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--url",
         server + DESCRIPTION_PATH, "--meta", "none", "--config", str(config),
         "--output-path", str(tmp_path / PACKAGE)],
        capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    # The generator warns about what it could not express: the description must leave nothing
    # out.
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    sys.path.insert(0, str(tmp_path))
    try:
        package = importlib.import_module(PACKAGE)
        yield package
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def signing_hook(token: str):
    """An httpx request hook: the four signature headers over the exact target and body that
    httpx is about to send, with a fresh nonce and timestamp each time."""
    def sign(request: httpx.Request) -> None:
        target = request.url.raw_path.decode("ascii")
        request.headers.update(signed_headers(token, request.method, target, request.content))
    return sign


def undeclared_fields(sent, parsed, path: str = "") -> list[str]:
    """Paths of fields the service sent that the generated models dropped: the description
    does not declare them (its objects say `additionalProperties: false`)."""
    found = []
    if isinstance(sent, dict) and isinstance(parsed, dict):
        for key, value in sent.items():
            if key not in parsed:
                found.append(f"{path}.{key}")
            else:
                found += undeclared_fields(value, parsed[key], f"{path}.{key}")
    elif isinstance(sent, list) and isinstance(parsed, list):
        for i, (a, b) in enumerate(zip(sent, parsed)):
            found += undeclared_fields(a, b, f"{path}.{i}")
    return found


def ok(response, status: int = 200):
    """The parsed success envelope of a documented status, declaring every field it holds."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    envelope = response.parsed
    assert envelope is not None and envelope.success is True, response.content[:500]
    assert undeclared_fields(json.loads(response.content), envelope.to_dict()) == [], \
        response.content[:500]
    return envelope.data


def test_recommended_call_order_through_a_generated_client(generated, server, keys, work):
    models = importlib.import_module(f"{PACKAGE}.models")

    def op(area: str, operation_id: str):
        """The generated module of an operation: api/<tag>/<operationId>.py."""
        return importlib.import_module(f"{PACKAGE}.api.{area}.{operation_id}")

    pull = generated.AuthenticatedClient(base_url=server, token=keys["pull"].token,
                                         raise_on_unexpected_status=True)
    push = generated.Client(base_url=server, raise_on_unexpected_status=True,
                            httpx_args={"event_hooks": {"request": [
                                signing_hook(keys["push"].token)]}})

    # The hotel's channel manager loads rates and inventory first: without them nothing is
    # sellable. 10 ACME-DBL rooms, 120.00 a night on ACME-BAR.
    ari_items = [models.AriItem(room_type_code="ACME-DBL", rate_plan_code="ACME-BAR", date=night,
                                availability=10, rate=120.0, currency=models.CurrencyCode.EUR)
                 for night in NIGHTS]
    seeded = ok(op("ari", "put_ari").sync_detailed(
        client=push, body=models.AriRequest(hotel_code="ACME-LIS", items=ari_items)), 202)
    assert work() == 1

    # 1. ping, whoami.
    assert ok(op("handshake", "ping").sync_detailed(client=pull)).server_time
    whoami = ok(op("handshake", "whoami").sync_detailed(client=pull))
    assert whoami.partner.code == "acme" and whoami.mapped_properties == 2

    # 2. mapping: the list, then one hotel's codes.
    hotels = ok(op("mapping", "list_hotels").sync_detailed(client=pull)).hotels
    assert sorted(h.hotel_code for h in hotels) == ["ACME-LIS", "ACME-OPO"]
    hotel = ok(op("mapping", "get_hotel").sync_detailed("ACME-LIS", client=pull)).hotel
    assert {r.room_type_code for r in hotel.room_types} == {"ACME-DBL", "ACME-SGL"}

    # 3. search and rates for two nights, two adults.
    occupancy = [models.Occupancy(adults=2)]
    stay = {"check_in": day(0), "check_out": day(2), "rooms": 1, "occupancy": occupancy}
    found = ok(op("availability", "search").sync_detailed(client=pull, body=models.SearchRequest(
        hotel_codes=["ACME-LIS", "NOPE"], **stay)))
    assert [(h.hotel_code, h.available, h.lowest_total_amount) for h in found.hotels] == [
        ("ACME-LIS", True, 240)]
    assert found.unknown_hotel_codes == ["NOPE"]
    rates = ok(op("availability", "rates").sync_detailed(client=pull, body=models.RatesRequest(
        hotel_code="ACME-LIS", **stay)))
    bar = next(p for t in rates.room_types if t.room_type_code == "ACME-DBL"
               for p in t.rate_plans if p.rate_plan_code == "ACME-BAR")
    assert bar.sellable is True and bar.total_amount == 240

    # 4. quote, book, read, cancel.
    room = {"hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR"}
    quote = ok(op("bookings", "quote").sync_detailed(client=pull, body=models.QuoteRequest(
        **room, **stay)))
    assert quote.total_amount == 240 and quote.currency == "EUR"
    guests = [models.Guest(room_number=1, first_name="Ana", last_name="Silva", is_adult=True),
              models.Guest(room_number=1, first_name="Rui", last_name="Silva", is_adult=True)]
    contact = models.Contact(first_name="Ana", last_name="Silva", email="ana@example.com")
    booking_request = models.BookingRequest(
        partner_reference="GEN-BKG-1", check_in=day(0), check_out=day(2), rooms=1,
        guests=guests, contact=contact, total_amount=quote.total_amount, currency=models.CurrencyCode.EUR,
        quote_token=quote.quote_token, **room)
    booked = ok(op("bookings", "create_booking").sync_detailed(client=pull, body=booking_request),
                201)
    assert booked.idempotent_replay is False and booked.booking.status.value == "confirmed"
    replay = ok(op("bookings", "create_booking").sync_detailed(client=pull,
                                                                body=booking_request))
    assert replay.idempotent_replay is True
    assert replay.booking.confirmation_number == booked.booking.confirmation_number
    read = ok(op("bookings", "get_booking").sync_detailed("GEN-BKG-1", client=pull))
    assert read.booking.confirmation_number == booked.booking.confirmation_number
    cancelled = ok(op("bookings", "cancel_booking").sync_detailed(
        "GEN-BKG-1", client=pull, body=models.CancelRequest(reason="plans changed")))
    assert cancelled.booking.status.value == "cancelled" and cancelled.currency == "EUR"

    # 5. ARI push and batch status: the seeding batch, then restrictions.
    outcome = ok(op("ari", "get_batch").sync_detailed(seeded.batch_id, client=push))
    assert outcome.status.value == "applied" and outcome.applied_count == len(NIGHTS)
    restricted = ok(op("ari", "put_restrictions").sync_detailed(
        client=push, body=models.RestrictionsRequest(hotel_code="ACME-LIS", items=[
            models.RestrictionItem(room_type_code="ACME-DBL", from_date=day(0), to_date=day(2),
                                   min_stay=2)])), 202)
    assert restricted.status.value == "queued"
    assert work() == 1
    outcome = ok(op("ari", "get_batch").sync_detailed(restricted.batch_id, client=push))
    assert outcome.status.value == "applied" and outcome.kind.value == "restrictions"

    # 6. reservation push, cancel; a second reservation pushed, then modified.
    def reservation(reference: str):
        return models.ReservationRequest(
            partner_reference=reference, hotel_code="ACME-LIS",
            status=models.ReservationRequestStatus.CONFIRMED, check_in=day(0), check_out=day(2),
            rooms=[models.PushedRoom(
                room_type_code="ACME-DBL", rate_plan_code="ACME-BAR", quantity=1, adults=2,
                nightly_rates=[models.NightlyRate(date=day(i), amount=100.0) for i in range(2)])],
            guests=[models.ReservationGuest(room_number=1, first_name="Eva", is_adult=True)],
            net_amount=170.0, net_currency=models.CurrencyCode.EUR, sell_amount=200.0,
            sell_currency=models.CurrencyCode.EUR)

    delivered = ok(op("reservations", "push_reservation").sync_detailed(
        client=push, body=reservation("GEN-RES-1")), 201)
    assert delivered.idempotent_replay is False and delivered.reconciliation == []
    assert delivered.acknowledgement.ack_id
    cancel = ok(op("reservations", "cancel_reservation").sync_detailed(
        "GEN-RES-1", client=push, body=models.ReservationCancelRequest(reason="guest")))
    assert cancel.reservation.status.value == "cancelled" and cancel.orphan is False
    ok(op("reservations", "push_reservation").sync_detailed(
        client=push, body=reservation("GEN-RES-2")), 201)
    modified = ok(op("reservations", "modify_reservation").sync_detailed(
        "GEN-RES-2", client=push, body=models.ModifyRequest(
            check_in=day(0), check_out=day(3), net_amount=255.0, net_currency=models.CurrencyCode.EUR,
            rooms=[models.ModifiedRoom(room_type_code="ACME-DBL", quantity=1, adults=2)])))
    assert modified.reservation.status.value == "modified"
    assert modified.reservation.check_out == day(3)

    # A refusal parses as the documented error envelope, with its code.
    refused = op("bookings", "get_booking").sync_detailed("NO-SUCH-BOOKING", client=pull)
    assert refused.status_code == 404 and refused.parsed.error.code == "not_found"
