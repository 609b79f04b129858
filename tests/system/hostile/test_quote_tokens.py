"""Quote tokens cannot be altered or moved: a re-signed-looking payload, a payload swapped
between two genuine tokens, a token taken to another partner for the very same stay, or to the
same partner's other environment under the very same codes, are all refused and book nothing.
(Altered bytes, a foreign key's token and another stay are covered in tests/bookings.)"""

from __future__ import annotations

import json
import zlib

import pytest
from itsdangerous.encoding import base64_decode, base64_encode

from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.support.envelope import assert_envelope_failure, assert_envelope_success
from tests.conftest import DEMO_CATALOG
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

from tests.system.hostile.conftest import API, START, booking_body, quote_body


@pytest.fixture
def priced(db, keys):
    nights = stay_dates(START, 4)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")


def quote(client, headers, **fields) -> str:
    return assert_envelope_success(client.post(f"{API}/bookings/quote", json=quote_body(**fields),
                                               headers=headers))["quote_token"]


def refused(client, headers, body, status, code, db):
    assert_envelope_failure(client.post(f"{API}/bookings", json=body, headers=headers),
                            status, code)
    assert db.run(lambda c: c.execute("SELECT count(*) AS n FROM bookings").fetchone()["n"]) == 0


def parts(token: str) -> tuple[dict, str]:
    """The token's payload and signature. itsdangerous compresses a payload when that makes
    it shorter, and then marks it with a leading '.'."""
    payload, signature = token.rsplit(".", 1)
    if payload.startswith("."):
        return json.loads(zlib.decompress(base64_decode(payload[1:]))), signature
    return json.loads(base64_decode(payload)), signature


def encode(payload: dict) -> str:
    return base64_encode(json.dumps(payload, separators=(",", ":"))).decode()


def test_a_payload_rewritten_under_its_own_signature_is_invalid(client, keys, priced, db):
    token = quote(client, keys.acme_pull)
    payload, signature = parts(token)
    for change in ({"t": "1.00"}, {"c": "USD"}, {"x": payload["x"] + 86400}, {"n": "US"},
                   {}):
        forged = encode({**payload, **change}) + "." + signature
        if forged == token:
            continue  # the same bytes: nothing was changed
        body = booking_body(quote_token=forged, total_amount=change.get("t", "200.00"))
        refused(client, keys.acme_pull, body, 422, "invalid_quote_token", db)


def test_payloads_swapped_between_two_genuine_tokens_are_invalid(client, keys, priced, db):
    one = quote(client, keys.acme_pull)
    two = quote(client, keys.acme_pull, rooms=2, occupancy=[{"adults": 2}, {"adults": 2}])
    (p1, s1), (p2, s2) = parts(one), parts(two)
    assert p1["b"] != p2["b"] and s1 != s2
    two_rooms = [dict(guest, room_number=room) for room in (1, 2)
                 for guest in booking_body()["guests"]]
    for forged, body in [
            (encode(p1) + "." + s2, booking_body()),
            (encode(p2) + "." + s1, booking_body(rooms=2, total_amount="400.00",
                                                 guests=two_rooms))]:
        refused(client, keys.acme_pull, {**body, "quote_token": forged}, 422,
                "invalid_quote_token", db)


def test_acmes_token_taken_by_globex_for_the_same_stay_is_a_mismatch(client, keys, priced, db):
    token = quote(client, keys.acme_pull)
    same_stay = booking_body("GLX-1", hotel_code="GLX-LIS", room_type_code="GLX-DBL",
                             rate_plan_code="GLX-BAR", quote_token=token)
    refused(client, keys.globex_pull, same_stay, 409, "quote_mismatch", db)
    # globex's own quote of that stay books it: the refusal was the token's owner alone
    own = quote(client, keys.globex_pull, hotel_code="GLX-LIS", room_type_code="GLX-DBL",
                rate_plan_code="GLX-BAR")
    assert_envelope_success(client.post(f"{API}/bookings", json={**same_stay,
                                                                 "quote_token": own},
                                        headers=keys.globex_pull), 201)


def test_a_sandbox_token_is_a_mismatch_in_production_under_the_same_codes(client, db, keys,
                                                                          priced, issue):
    demo = json.loads(DEMO_CATALOG.read_text())
    lisbon = dict(demo["properties"][0], code="LIS9", environment="production")
    db.run(load_catalog, parse_catalog(json.dumps({"properties": [lisbon], "partners": [
        {"code": "acme", "name": "Acme Travel", "mappings": [
            {"property": "LIS9", "hotel_code": "ACME-LIS", "active": True,
             "room_types": {"DBL": "ACME-DBL"}, "rate_plans": {"BAR": "ACME-BAR"}}]}]})))
    nights = stay_dates(START, 4)
    set_room_days(db, "LIS9", "DBL", nights, available=5)
    set_plan_days(db, "LIS9", "DBL", "BAR", nights, rate="100.00")
    sandbox_token = quote(client, keys.acme_pull)
    refused(client, keys.prod_pull, booking_body(quote_token=sandbox_token), 409,
            "quote_mismatch", db)
    production_token = quote(client, keys.prod_pull)
    refused(client, keys.acme_pull, booking_body(quote_token=production_token), 409,
            "quote_mismatch", db)
    assert_envelope_success(client.post(f"{API}/bookings",
                                        json=booking_body(quote_token=production_token),
                                        headers=keys.prod_pull), 201)
