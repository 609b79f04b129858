"""Sandbox scenarios of the pull side (contract 11.4): forced answers built from the request's
real hotel, room type, plan and dates, and nothing stored."""

from __future__ import annotations

from decimal import Decimal

import psycopg
import pytest

from tests.support.envelope import assert_envelope_failure, assert_envelope_success

from tests.sandbox.conftest import API, booking_body, quote_body, scenario, stay


def count(services, sql: str) -> int:
    with psycopg.connect(services.database_url) as conn:
        return conn.execute(sql).fetchone()[0]


def inventory(services) -> list:
    with psycopg.connect(services.database_url) as conn:
        return conn.execute("SELECT date, room_type_id, available FROM room_type_days "
                            "ORDER BY 1, 2").fetchall()


def search(client, headers, **fields):
    return client.post(f"{API}/availability/search", headers=headers, json={
        "hotel_codes": ["ACME-LIS", "ACME-OPO", "NOPE"], **stay(), "rooms": 1,
        "occupancy": [{"adults": 2}], **fields})


def test_search_sold_out_answers_the_hotels_asked_about(client, pull):
    real = assert_envelope_success(search(client, pull))
    assert all(h["available"] for h in real["hotels"])
    forced = assert_envelope_success(search(client, scenario(pull, "sold_out")))
    assert forced["hotels"] == [{**h, "available": False, "lowest_total_amount": None}
                                for h in real["hotels"]]
    assert forced["unknown_hotel_codes"] == ["NOPE"]


def test_rates_sold_out_lists_every_plan_unsellable_with_its_real_prices(client, pull):
    body = {"hotel_code": "ACME-LIS", **stay(), "rooms": 1, "occupancy": [{"adults": 2}]}
    real = assert_envelope_success(client.post(f"{API}/availability/rates", headers=pull,
                                               json=body))
    forced = assert_envelope_success(client.post(
        f"{API}/availability/rates", headers=scenario(pull, "sold_out"), json=body))
    pairs = [(rt["room_type_code"], rp, frp) for rt, frt in zip(real["room_types"],
                                                                 forced["room_types"])
             for rp, frp in zip(rt["rate_plans"], frt["rate_plans"])]
    assert len(pairs) == 5
    for _, plan, plan_forced in pairs:
        assert plan_forced["sellable"] is False and "sold_out" in plan_forced["reasons"]
        assert set(plan_forced["reasons"]) == set(plan["reasons"]) | {"sold_out"}
        assert plan_forced["total_amount"] == plan["total_amount"]
        assert [n["amount"] for n in plan_forced["nights"]] == [n["amount"]
                                                                for n in plan["nights"]]
        assert {n["available_rooms"] for n in plan_forced["nights"]} == {0}


def test_quote_sold_out_after_the_real_checks(client, pull):
    error = assert_envelope_failure(client.post(
        f"{API}/bookings/quote", headers=scenario(pull, "sold_out"), json=quote_body()),
        409, "sold_out")
    assert "X-Sandbox-Scenario" in error["message"]
    # A stay the service cannot find is refused as it would be without the header.
    assert_envelope_failure(client.post(
        f"{API}/bookings/quote", headers=scenario(pull, "sold_out"),
        json=quote_body(room_type_code="ACME-NOPE")), 404, "not_found")
    # and one it cannot sell (the residents' plan without a nationality) too.
    error = assert_envelope_failure(client.post(
        f"{API}/bookings/quote", headers=scenario(pull, "sold_out"),
        json=quote_body(rate_plan_code="ACME-RES")), 409, "not_sellable")
    assert error["details"]["reasons"] == ["nationality"]


def test_quote_price_changed_gives_a_token_for_the_higher_price(client, pull, services):
    real = assert_envelope_success(client.post(f"{API}/bookings/quote", headers=pull,
                                               json=quote_body()))
    changed = assert_envelope_success(client.post(
        f"{API}/bookings/quote", headers=scenario(pull, "price_changed"), json=quote_body()))
    expected = (Decimal(str(real["total_amount"])) * Decimal("1.1")).quantize(Decimal("0.01"))
    assert Decimal(str(changed["total_amount"])) == expected
    assert sum(Decimal(str(n["amount"])) for n in changed["nights"]) == expected
    assert changed["quote_token"] != real["quote_token"]
    # The token holds the changed price: the booking made with it costs that.
    booked = assert_envelope_success(client.post(
        f"{API}/bookings", headers=pull, json=booking_body(
            changed["total_amount"], quote_token=changed["quote_token"])), 201)
    assert booked["booking"]["total_amount"] == changed["total_amount"]


@pytest.mark.parametrize("value, status, code", [
    ("sold_out", 409, "sold_out"),
    ("price_changed", 409, "price_mismatch"),
    ("quote_expired", 409, "quote_expired"),
])
def test_booking_scenarios_store_nothing(client, pull, services, value, status, code):
    real = assert_envelope_success(client.post(f"{API}/bookings/quote", headers=pull,
                                               json=quote_body()))
    before = inventory(services)
    error = assert_envelope_failure(client.post(
        f"{API}/bookings", headers=scenario(pull, value),
        json=booking_body(real["total_amount"], quote_token=real["quote_token"])),
        status, code)
    if value == "price_changed":
        expected = (Decimal(str(real["total_amount"])) * Decimal("1.1")).quantize(
            Decimal("0.01"))
        assert error["details"] == {"total_amount": float(expected), "currency": "EUR"}
    assert count(services, "SELECT count(*) FROM bookings") == 0
    assert inventory(services) == before
    # The same request without the header books: the scenario was the only obstacle.
    assert_envelope_success(client.post(
        f"{API}/bookings", headers=pull,
        json=booking_body(real["total_amount"], quote_token=real["quote_token"])), 201)


def test_booking_scenarios_follow_the_real_checks_first(client, pull):
    for value in ("sold_out", "price_changed", "quote_expired"):
        assert_envelope_failure(client.post(
            f"{API}/bookings", headers=scenario(pull, value),
            json=booking_body(300, hotel_code="ACME-NOWHERE")), 404, "not_found")
    # a token this service never signed is refused as such before a forced outcome
    for value in ("price_changed", "quote_expired", "sold_out"):
        assert_envelope_failure(client.post(
            f"{API}/bookings", headers=scenario(pull, value),
            json=booking_body(300, quote_token="not-a-token")), 422, "invalid_quote_token")


def test_cancel_penalty_exceeds_expectation_leaves_the_booking(client, pull, services):
    real = assert_envelope_success(client.post(f"{API}/bookings/quote", headers=pull,
                                               json=quote_body()))
    assert_envelope_success(client.post(f"{API}/bookings", headers=pull, json=booking_body(
        real["total_amount"], quote_token=real["quote_token"])), 201)
    cancel = f"{API}/bookings/SBX-1/cancel"
    error = assert_envelope_failure(client.post(
        cancel, headers=scenario(pull, "penalty_exceeds_expectation"), json={}),
        409, "penalty_exceeds_expectation")
    # A week ahead, BAR's 48-hour tier does not apply yet: the real penalty is 0.
    assert error["details"] == {"penalty_amount": 0, "currency": "EUR"}
    error = assert_envelope_failure(client.post(
        cancel, headers=scenario(pull, "penalty_exceeds_expectation"),
        json={"expected_penalty_amount": 10, "currency": "EUR"}),
        409, "penalty_exceeds_expectation")
    assert error["details"] == {"penalty_amount": 10.01, "currency": "EUR"}
    booking = assert_envelope_success(client.get(f"{API}/bookings/SBX-1", headers=pull))
    assert booking["booking"]["status"] == "confirmed"
    assert_envelope_failure(client.post(
        f"{API}/bookings/NOT-MINE/cancel", headers=scenario(pull, "penalty_exceeds_expectation"),
        json={}), 404, "not_found")
    assert_envelope_failure(client.post(
        cancel, headers=scenario(pull, "penalty_exceeds_expectation"),
        json={"expected_penalty_amount": 10, "currency": "USD"}), 422, "validation_failed")
