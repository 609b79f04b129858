"""Text PostgreSQL cannot store (U+0000, lone surrogates) is a 422 naming where it is, on every
body-carrying endpoint, never a 500 from the database driver."""

from __future__ import annotations

import pytest

from tests.support.envelope import API, assert_envelope_failure

NUL, SURROGATE = "\u0000", "\ud800"
STAY = {"check_in": "2030-01-01", "check_out": "2030-01-02", "rooms": 1,
        "occupancy": [{"adults": 1}]}


@pytest.mark.parametrize("method, path, preset, body, where", [
    ("POST", "/availability/search", "pull", {"hotel_codes": ["ACME-LIS", "A" + NUL], **STAY},
     "hotel_codes.1"),
    ("POST", "/availability/search", "pull", {"hotel_codes": [SURROGATE], **STAY},
     "hotel_codes.0"),
    ("POST", "/availability/rates", "pull", {"hotel_code": NUL, **STAY}, "hotel_code"),
    ("POST", "/availability/rates", "pull",
     {"hotel_code": "ACME-LIS", "room_type_codes": ["x" + SURROGATE + "y"], **STAY},
     "room_type_codes.0"),
    ("PUT", "/ari", "push", {"hotel_code": "ACME-LIS", "items": [
        {"room_type_code": "ACME-DBL", "date": "2030-01-01"},
        {"room_type_code": "A" + NUL, "date": "2030-01-01"}]}, "items.1.room_type_code"),
    ("PUT", "/ari/restrictions", "push", {"hotel_code": SURROGATE, "items": []}, "hotel_code"),
    ("PUT", "/ari", "push", {"hotel_code": "ACME-LIS", NUL: 1}, NUL),
])
def test_unstorable_text_is_a_422_naming_its_place(client, issue, catalog, method, path, preset,
                                                   body, where):
    key = issue(preset, signed=False)
    response = client.open(API + path, method=method, json=body,
                           headers={"Authorization": f"Bearer {key.token}"})
    fields = assert_envelope_failure(response, 422, "validation_failed")["details"]["fields"]
    assert list(fields) == [where]


def test_an_escaped_backslash_before_u0000_is_ordinary_text(client, issue, catalog):
    # "\\u0000" in JSON is a backslash followed by "u0000": storable, so judged as usual.
    key = issue("pull")
    response = client.post(
        f"{API}/availability/search", data='{"hotel_codes": ["a\\\\u0000"], "check_in": '
        '"2030-01-01", "check_out": "2030-01-02", "rooms": 1, "occupancy": [{"adults": 1}]}',
        content_type="application/json", headers={"Authorization": f"Bearer {key.token}"})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["data"]["unknown_hotel_codes"] == ["a\\u0000"]


@pytest.mark.parametrize("segment", ["A%00", "A%0A", "%7F"])
def test_a_hotel_code_path_segment_with_a_control_character_is_404(client, issue, catalog,
                                                                   segment):
    key = issue("pull")
    response = client.get(f"{API}/mapping/hotels/{segment}",
                          headers={"Authorization": f"Bearer {key.token}"})
    assert_envelope_failure(response, 404, "not_found")
