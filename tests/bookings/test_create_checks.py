"""POST /bookings and /bookings/quote refusals: each with its catalogue code, nothing stored and
nothing decremented, in the order of contract section 10."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from connectivity.bookings.quote_token import QuoteTokens, StayBinding
from connectivity.pricing import RoomOccupancy
from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.conftest import SECRET_KEY
from tests.support.ari_days import set_plan_days, set_room_days

from tests.bookings.conftest import (API, START, available, booking_body, booking_count, quote_body,
                       room_guests)

BOOK, QUOTE = f"{API}/bookings", f"{API}/bookings/quote"


def refused(client, headers, body, status, code, url=BOOK):
    return assert_envelope_failure(client.post(url, json=body, headers=headers), status, code)


def untouched(db):
    assert booking_count(db) == 0
    assert available(db) == [5, 5, 5, 5]


def pause(app, prop="LIS1"):
    with app.app_context():
        result = app.test_cli_runner().invoke(args=["distribution", "pause", "--partner", "acme",
                                                    "--property", prop])
        assert result.exit_code == 0, result.output


def quote_token(client, headers, **fields) -> str:
    return assert_envelope_success(client.post(QUOTE, json=quote_body(**fields),
                                               headers=headers))["quote_token"]


# --- validation ----------------------------------------------------------------------------------

@pytest.mark.parametrize("change, path", [
    ({"guests": [{"first_name": "A", "last_name": "B", "is_adult": True}]}, "guests.0.room_number"),
    ({"guests": [{"room_number": 2, "first_name": "A", "last_name": "B", "is_adult": True}]},
     "guests.0.room_number"),
    ({"rooms": 2}, "guests"),  # room 2 has nobody
    ({"guests": [{"room_number": 1, "first_name": "Kid", "last_name": "B", "is_adult": False,
                  "age": 8}]}, "guests"),  # a room without an adult
    ({"guests": [{"room_number": 1, "first_name": "A", "last_name": "B", "is_adult": 1}]},
     "guests.0.is_adult"),
    ({"guests": room_guests() + [{**room_guests()[0], "is_lead": True},
                                 {**room_guests()[0], "is_lead": True}]}, "guests"),
    ({"partner_reference": "has/slash"}, "partner_reference"),
    ({"partner_reference": "R" * 121}, "partner_reference"),
    ({"total_amount": -1}, "total_amount"),
    ({"total_amount": True}, "total_amount"),
    ({"total_amount": "12,50"}, "total_amount"),
    ({"total_amount": "1e400"}, "total_amount"),
    ({"currency": "EURO"}, "currency"),
    ({"contact": {"first_name": "A", "email": "not-an-email"}}, "contact.email"),
    ({"contact": {"first_name": "A\x00", "email": "a@example.com"}}, "contact.first_name"),
    ({"quote_token": "t" * 513}, "quote_token"),
    ({"arrival_time": "25:00"}, "arrival_time"),
    ({"check_in": "2020-01-01"}, "check_in"),
    ({"check_out": None}, "check_out"),
    ({"rooms": 31}, "rooms"),
    ({"special_requests": "x" * 2001}, "special_requests"),
    ({"unexpected": 1}, "unexpected"),
    ({"hotel_code": "ACME\x00LIS"}, "hotel_code"),
    ({"guests": [{**room_guests()[0], "first_name": "Ana\ud800"}]}, "guests.0.first_name"),
    ({"special_requests": "late\x00"}, "special_requests"),
])
def test_bad_input_is_validation_failed(client, pull, lisbon, db, change, path):
    error = refused(client, pull, {**booking_body(), **change}, 422, "validation_failed")
    assert path in error["details"]["fields"], error
    untouched(db)


def test_amounts_may_be_numeric_strings(client, pull, lisbon):
    assert_envelope_success(client.post(BOOK, json=booking_body(total="200.0"), headers=pull), 201)


# --- not mapped ----------------------------------------------------------------------------------

@pytest.mark.parametrize("field, value", [("hotel_code", "ACME-NOPE"),
                                          ("room_type_code", "ACME-NOPE"),
                                          ("rate_plan_code", "ACME-NOPE"),
                                          ("room_type_code", "DBL")])  # internal codes are not the partner's
def test_unmapped_codes_are_not_found(client, pull, lisbon, db, field, value):
    refused(client, pull, {**booking_body(), field: value}, 404, "not_found")
    refused(client, pull, {**quote_body(), field: value}, 404, "not_found", QUOTE)
    untouched(db)


def test_a_paused_property_sells_nothing_new(client, pull, lisbon, db, app):
    token = quote_token(client, pull)
    pause(app)
    refused(client, pull, quote_body(), 404, "not_found", QUOTE)
    refused(client, pull, booking_body(quote_token=token), 404, "not_found")
    untouched(db)


# --- quote token ---------------------------------------------------------------------------------

def acme_binding(db) -> StayBinding:
    """What the service binds a quote of booking_body() to."""
    partner_id = db.run(lambda c: c.execute("SELECT id FROM partners WHERE code = 'acme'")
                        .fetchone()["id"])
    return StayBinding(partner_id, "sandbox", "ACME-LIS", "ACME-DBL", "ACME-BAR", START,
                       START + dt.timedelta(days=2), 1, (RoomOccupancy(2),))


def test_forged_or_altered_token_is_invalid(client, pull, lisbon, db):
    token = quote_token(client, pull)
    payload, signature = token.rsplit(".", 1)
    other_key = QuoteTokens("another-secret-" + "x" * 32, 900).issue(
        acme_binding(db), Decimal("200.00"), "EUR", None, dt.datetime.now(dt.timezone.utc))[0]
    for bad in ("nonsense", token[:-2] + ("AA" if token[-2:] != "AA" else "BB"),
                payload[:-1] + ("A" if payload[-1] != "A" else "B") + "." + signature,
                other_key):
        refused(client, pull, booking_body(quote_token=bad), 422, "invalid_quote_token")
    untouched(db)
    # the genuine token books
    assert_envelope_success(client.post(BOOK, json=booking_body(quote_token=token),
                                        headers=pull), 201)


def test_expired_token(client, pull, lisbon, db):
    tokens = QuoteTokens(SECRET_KEY, 900)
    long_ago = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=901)
    expired, _ = tokens.issue(acme_binding(db), Decimal("200.00"), "EUR", None, long_ago)
    refused(client, pull, booking_body(quote_token=expired), 409, "quote_expired")
    untouched(db)
    # the same token minted a minute later is honoured: the refusal was about its age alone
    fresh, _ = tokens.issue(acme_binding(db), Decimal("200.00"), "EUR", None,
                            long_ago + dt.timedelta(seconds=60))
    assert_envelope_success(client.post(BOOK, json=booking_body(quote_token=fresh),
                                        headers=pull), 201)


TWO_ADULTS = {"adults": 2, "child_ages": []}


@pytest.mark.parametrize("change, differences", [
    ({"check_out": (START + dt.timedelta(days=3)).isoformat(), "total_amount": 300},
     {"check_out": {"quoted": (START + dt.timedelta(days=2)).isoformat(),
                    "requested": (START + dt.timedelta(days=3)).isoformat()}}),
    ({"rate_plan_code": "ACME-NRF", "total_amount": 180},
     {"rate_plan_code": {"quoted": "ACME-BAR", "requested": "ACME-NRF"}}),
    # The issue's case: quoted for 2 adults, booked with 1.
    ({"guests": room_guests(adults=1), "total_amount": 160},
     {"occupancy": {"quoted": [TWO_ADULTS], "requested": [{"adults": 1, "child_ages": []}]}}),
    ({"guests": [*room_guests(), {"room_number": 1, "first_name": "Rita", "last_name": "Silva",
                                  "is_adult": False}], "total_amount": 230},
     {"occupancy": {"quoted": [TWO_ADULTS], "requested": [{"adults": 2, "child_ages": [None]}]}}),
    ({"rooms": 2, "guests": room_guests(rooms=2), "total_amount": 400},
     {"rooms": {"quoted": 1, "requested": 2},
      "occupancy": {"quoted": [TWO_ADULTS], "requested": [TWO_ADULTS, TWO_ADULTS]}}),
])
def test_token_for_another_stay_is_a_mismatch_naming_each_difference(client, pull, lisbon, db,
                                                                     change, differences):
    token = quote_token(client, pull)
    error = refused(client, pull, {**booking_body(quote_token=token), **change}, 409,
                    "quote_mismatch")
    assert error["details"] == {"fields": differences}
    assert all(name in error["message"] for name in differences), error["message"]
    untouched(db)


def test_token_of_another_partner_is_a_mismatch(client, pull, globex, lisbon, db):
    theirs = assert_envelope_success(client.post(QUOTE, json={
        **quote_body(), "hotel_code": "GLX-LIS", "room_type_code": "GLX-DBL",
        "rate_plan_code": "GLX-BAR"}, headers=globex))["quote_token"]
    error = refused(client, pull, booking_body(quote_token=theirs), 409, "quote_mismatch")
    # Its codes are globex's own (what the token carries), not the stay acme asks for.
    assert error["details"] == {"fields": {
        "hotel_code": {"quoted": "GLX-LIS", "requested": "ACME-LIS"},
        "room_type_code": {"quoted": "GLX-DBL", "requested": "ACME-DBL"},
        "rate_plan_code": {"quoted": "GLX-BAR", "requested": "ACME-BAR"}}}
    untouched(db)


def test_quoted_price_holds_after_a_price_change(client, pull, lisbon, db):
    token = quote_token(client, pull, nights=3)
    set_plan_days(db, "LIS1", "DBL", "BAR", [START], rate="160.00")  # now 360 for 3 nights
    refused(client, pull, booking_body(nights=3, total=360, quote_token=token), 409,
            "price_mismatch")
    data = assert_envelope_success(client.post(BOOK, json=booking_body(
        nights=3, total=300, quote_token=token), headers=pull), 201)
    nights = [n["amount"] for n in data["booking"]["nights"]]
    assert data["booking"]["total_amount"] == 300 and sum(nights) == 300
    assert nights == [133.33, 83.33, 83.34]  # the quoted total in the live nights' proportions
    # without a token the live price applies
    assert_envelope_success(client.post(BOOK, json=booking_body("LIVE", nights=3, total=360),
                                        headers=pull), 201)


def test_token_currency_and_nationality_apply(client, pull, lisbon, db):
    set_plan_days(db, "LIS1", "DBL", "BAR", lisbon, rate="100.00")
    token = quote_token(client, pull, currency="USD", nationality="ES")
    body = booking_body(quote_token=token, total="217.00", currency="USD")
    data = assert_envelope_success(client.post(BOOK, json=body, headers=pull), 201)
    assert (data["booking"]["total_amount"], data["booking"]["currency"]) == (217, "USD")
    nationality = db.run(lambda c: c.execute("SELECT nationality FROM bookings").fetchone())
    assert nationality["nationality"] == "ES"


# --- sellability, price, inventory ---------------------------------------------------------------

def test_not_sellable_lists_the_reasons(client, pull, lisbon, db):
    set_room_days(db, "LIS1", "DBL", [START], closed=True, min_stay=3)
    error = refused(client, pull, booking_body(), 409, "not_sellable")
    assert error["details"]["reasons"] == ["closed", "min_stay"]
    refused(client, pull, quote_body(), 409, "not_sellable", QUOTE)
    set_room_days(db, "LIS1", "DBL", [START], closed=False, min_stay=1, available=5)
    untouched(db)


def test_occupancy_from_guests_decides_fit_and_price(client, pull, lisbon, db):
    kid = {"room_number": 1, "first_name": "Rui", "last_name": "Silva", "is_adult": False, "age": 5}
    teen = {**kid, "first_name": "Eva", "age": 15}  # over LIS1's max_child_age 11: an adult
    body = booking_body(guests=room_guests() + [kid], total=230)  # 115 a night: 100 + a child at 15
    assert_envelope_success(client.post(BOOK, json=body, headers=pull), 201)
    body = booking_body("TEEN", guests=room_guests() + [teen], total=260)  # 130 a night: 100 + an extra adult at 30
    assert_envelope_success(client.post(BOOK, json=body, headers=pull), 201)
    crowd = booking_body("CROWD", guests=room_guests(adults=4))
    assert refused(client, pull, crowd, 409, "not_sellable")["details"]["reasons"] == ["occupancy"]


def test_nationality_is_the_lead_guests(client, pull, lisbon, db):
    db.run(lambda c: c.execute("UPDATE rate_plans SET allowed_nationalities = '{ES}' "
                               "WHERE code = 'BAR'"))
    error = refused(client, pull, booking_body(), 409, "not_sellable")  # room 1's first adult: PT
    assert error["details"]["reasons"] == ["nationality"]
    guests = room_guests()
    guests[1] = {**guests[1], "nationality": "ES", "is_lead": True}
    assert_envelope_success(client.post(BOOK, json=booking_body(guests=guests), headers=pull), 201)
    # with a token, the quote's nationality decides, whoever leads
    token = quote_token(client, pull, nationality="ES")
    assert_envelope_success(client.post(BOOK, json=booking_body("TOKEN", quote_token=token),
                                        headers=pull), 201)


def test_price_mismatch_stores_nothing_and_takes_nothing(client, pull, lisbon, db):
    error = refused(client, pull, booking_body(total="199.99"), 409, "price_mismatch")
    assert error["details"] == {"total_amount": 200, "currency": "EUR"}
    refused(client, pull, booking_body(total="200.001"), 409, "price_mismatch")
    error = refused(client, pull, booking_body(currency="USD", total=200), 409, "price_mismatch")
    assert error["details"] == {"total_amount": 217, "currency": "USD"}
    untouched(db)
    assert_envelope_failure(client.get(f"{API}/bookings/ACME-BKG-1", headers=pull), 404,
                            "not_found")


def test_a_currency_without_fx_rate(client, pull, lisbon, db):
    refused(client, pull, booking_body(currency="JPY"), 422, "currency_not_supported")
    untouched(db)


def test_sold_out_when_any_night_is_short(client, pull, lisbon, db):
    set_room_days(db, "LIS1", "DBL", [START + dt.timedelta(days=1)], available=1)
    refused(client, pull, booking_body(rooms=2, total=400, guests=room_guests(2)), 409, "sold_out")
    refused(client, pull, quote_body(rooms=2), 409, "sold_out", QUOTE)
    assert available(db) == [5, 1, 5, 5] and booking_count(db) == 0
    # a night with a price but no inventory row at all is sold out too
    set_plan_days(db, "LIS1", "DBL", "BAR", [START + dt.timedelta(days=4)], rate="100.00")
    refused(client, pull, booking_body(nights=2, offset=3, total=200), 409, "sold_out")
    assert booking_count(db) == 0


# --- the order of the checks ---------------------------------------------------------------------

def test_replay_comes_before_everything_else(client, pull, lisbon, db, app):
    original = assert_envelope_success(client.post(BOOK, json=booking_body(), headers=pull), 201)
    set_room_days(db, "LIS1", "DBL", lisbon, available=0, closed=True)
    pause(app)
    replay = assert_envelope_success(client.post(
        BOOK, json=booking_body(total=1, quote_token="forged"), headers=pull), 200)
    assert replay["booking"] == original["booking"] and replay["request_differs"] is True


def test_order_not_mapped_token_sellability_price_inventory(client, pull, lisbon, db):
    set_room_days(db, "LIS1", "DBL", [START], closed=True, available=0)
    wrong = {"total_amount": 1, "quote_token": "forged"}
    refused(client, pull, {**booking_body(**wrong), "hotel_code": "NOPE"}, 404, "not_found")
    refused(client, pull, booking_body(**wrong), 422, "invalid_quote_token")
    refused(client, pull, booking_body(total=1), 409, "not_sellable")
    set_room_days(db, "LIS1", "DBL", [START], closed=False)
    refused(client, pull, booking_body(total=1), 409, "price_mismatch")
    refused(client, pull, booking_body(), 409, "sold_out")
    assert booking_count(db) == 0


@pytest.mark.parametrize("change, path", [
    ({"hotel_code": "ACME\x00LIS"}, "hotel_code"),
    ({"rooms": 2, "occupancy": [{"adults": 1}] * 3}, "occupancy"),
    ({"occupancy": [{"adults": 1, "children": 1, "child_ages": [3, 4]}]}, "occupancy.0.child_ages"),
    ({"nationality": "XX"}, "nationality"),
])
def test_bad_quote_input_is_validation_failed(client, pull, lisbon, change, path):
    error = refused(client, pull, {**quote_body(), **change}, 422, "validation_failed", QUOTE)
    assert path in error["details"]["fields"], error
