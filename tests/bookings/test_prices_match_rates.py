"""Quote and booking price a stay exactly as POST /availability/rates shows it: same nights,
same total, for occupancies that exercise single rates, extra adults, children, over-age
children, several rooms, and currency conversion."""

from __future__ import annotations

import pytest

from tests.support.envelope import assert_envelope_success
from tests.support.ari_days import set_room_days

from tests.bookings.conftest import API, booking_body, quote_body

KID, TEEN = 5, 15  # LIS1's max_child_age is 11: the teen is priced as an adult

CASES = [
    ([{"adults": 1}], 1),
    ([{"adults": 2}], 1),
    ([{"adults": 3}], 1),
    ([{"adults": 2, "children": 1, "child_ages": [KID]}], 1),
    ([{"adults": 1, "children": 2, "child_ages": [KID, TEEN]}], 1),
    ([{"adults": 2, "children": 1}], 1),                       # a child without an age
    ([{"adults": 1}, {"adults": 2, "children": 1, "child_ages": [KID]}], 2),
    ([{"adults": 2}], 3),
]


def guests_for(occupancy: list[dict], rooms: int) -> list[dict]:
    per_room = occupancy * rooms if len(occupancy) == 1 else occupancy
    guests = []
    for number, room in enumerate(per_room, start=1):
        guests += [{"room_number": number, "first_name": f"A{i}", "last_name": "S",
                    "is_adult": True} for i in range(room["adults"])]
        ages = room.get("child_ages") or [None] * room.get("children", 0)
        guests += [{"room_number": number, "first_name": f"C{i}", "last_name": "S",
                    "is_adult": False, **({} if age is None else {"age": age})}
                   for i, age in enumerate(ages)]
    return guests


@pytest.mark.parametrize("currency", ["EUR", "USD", "GBP"])
@pytest.mark.parametrize("occupancy, rooms", CASES)
def test_quote_and_booking_price_as_rates_does(client, pull, db, lisbon, occupancy, rooms,
                                               currency):
    set_room_days(db, "LIS1", "DBL", lisbon, available=10)  # two bookings of up to 3 rooms
    stay = {**quote_body(nights=3, rooms=rooms), "occupancy": occupancy, "currency": currency}
    rates = assert_envelope_success(client.post(f"{API}/availability/rates", json={
        **{k: v for k, v in stay.items() if k not in ("room_type_code", "rate_plan_code")},
        "room_type_codes": ["ACME-DBL"], "rate_plan_codes": ["ACME-BAR"]}, headers=pull))
    plan = rates["room_types"][0]["rate_plans"][0]
    assert plan["sellable"], plan
    quoted = assert_envelope_success(client.post(f"{API}/bookings/quote", json=stay,
                                                 headers=pull))
    assert quoted["nights"] == plan["nights"]
    assert (quoted["total_amount"], quoted["currency"]) == (plan["total_amount"], currency)

    body = booking_body(f"P-{rooms}-{len(occupancy)}-{currency}", nights=3, rooms=rooms,
                        total=plan["total_amount"], currency=currency,
                        guests=guests_for(occupancy, rooms))
    live = assert_envelope_success(client.post(f"{API}/bookings", json=body, headers=pull), 201)
    assert [n["amount"] for n in live["booking"]["nights"]] == [
        n["amount"] for n in plan["nights"]]
    with_token = {**body, "partner_reference": body["partner_reference"] + "-Q",
                  "quote_token": quoted["quote_token"]}
    booked = assert_envelope_success(client.post(f"{API}/bookings", json=with_token,
                                                 headers=pull), 201)
    assert booked["booking"]["total_amount"] == plan["total_amount"]
