"""GET /bookings (contract 12.1): the caller's bookings oldest first, its filters, pages whose
cursor is bound to the filters it was issued for, and bad input."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests.bookings.conftest import API, booking_body, day
from tests.support.envelope import assert_envelope_failure, assert_envelope_success


def _book(client, headers, reference, **fields):
    """One night, so that LIS1's five DBL rooms hold every booking of a test."""
    return assert_envelope_success(client.post(f"{API}/bookings", json=booking_body(
        reference, nights=1, total="100.00", **fields), headers=headers), 201)["booking"]


def _pages(client, headers, query=""):
    references, cursor = [], None
    while True:
        url = f"{API}/bookings?limit=2{query}" + (f"&cursor={cursor}" if cursor else "")
        data = assert_envelope_success(client.get(url, headers=headers))
        references += [b["partner_reference"] for b in data["bookings"]]
        assert (data["next_cursor"] is None) == (not data["has_more"])
        if not data["has_more"]:
            return references
        cursor = data["next_cursor"]


def test_pages_oldest_first_and_filters(client, pull, globex, lisbon):
    made = [_book(client, pull, f"L-{i}", offset=i % 2) for i in range(5)]
    _book(client, globex, "G-1", hotel_code="GLX-LIS", room_type_code="GLX-DBL",
          rate_plan_code="GLX-BAR")
    assert client.post(f"{API}/bookings/L-1/cancel", json={}, headers=pull).status_code == 200
    assert _pages(client, pull) == [f"L-{i}" for i in range(5)]  # never another partner's
    full = assert_envelope_success(client.get(f"{API}/bookings?limit=1", headers=pull))
    assert full["bookings"][0]["confirmation_number"] == made[0]["confirmation_number"]
    assert _pages(client, pull, "&status=cancelled") == ["L-1"]
    assert _pages(client, pull, "&status=confirmed") == ["L-0", "L-2", "L-3", "L-4"]
    assert _pages(client, pull, f"&check_in_from={day(1)}") == ["L-1", "L-3"]
    assert _pages(client, pull, f"&check_in_to={day(0)}") == ["L-0", "L-2", "L-4"]
    third = quote(made[2]["created_at"])
    assert _pages(client, pull, f"&created_from={third}") == ["L-2", "L-3", "L-4"]
    assert _pages(client, pull, f"&created_to={third}") == ["L-0", "L-1", "L-2"]
    assert _pages(client, pull, "&hotel_code=ACME-LIS") == [f"L-{i}" for i in range(5)]
    assert _pages(client, pull, "&hotel_code=ACME-OPO") == []
    # An unmapped hotel code is an empty list, not 404.
    empty = assert_envelope_success(client.get(f"{API}/bookings?hotel_code=NOPE", headers=pull))
    assert empty == {"bookings": [], "next_cursor": None, "has_more": False}


def test_a_cursor_holds_only_with_its_filters(client, pull, globex, lisbon):
    for i in range(3):
        _book(client, pull, f"C-{i}")
    first = assert_envelope_success(client.get(f"{API}/bookings?limit=1&status=confirmed",
                                               headers=pull))
    cursor = first["next_cursor"]
    assert assert_envelope_success(client.get(
        f"{API}/bookings?limit=1&status=confirmed&cursor={cursor}", headers=pull))["bookings"]
    for url, headers in ((f"{API}/bookings?limit=1&cursor={cursor}", pull),
                         (f"{API}/bookings?limit=1&status=cancelled&cursor={cursor}", pull),
                         (f"{API}/bookings?limit=1&status=confirmed&cursor={cursor}", globex),
                         (f"{API}/bookings?cursor=not-a-cursor", pull)):
        error = assert_envelope_failure(client.get(url, headers=headers), 422,
                                        "validation_failed")
        assert list(error["details"]["fields"]) == ["cursor"]


@pytest.mark.parametrize("query, field", [
    ("status=open", "status"), ("limit=0", "limit"), ("limit=201", "limit"),
    ("created_from=2026-01-01T00:00:00", "created_from"),  # no offset
    ("created_to=yesterday", "created_to"), ("check_in_from=2026-13-01", "check_in_from"),
    ("check_in_to=20261201", "check_in_to"), ("cursor=" + "x" * 201, "cursor"),
    ("hotel_code=" + "H" * 121, "hotel_code"),
])
def test_bad_input_is_422_naming_the_field(client, pull, catalog, query, field):
    error = assert_envelope_failure(client.get(f"{API}/bookings?{query}", headers=pull), 422,
                                    "validation_failed")
    assert field in error["details"]["fields"]


def test_scope_booking_read(client, issue, catalog):
    push = {"Authorization": f"Bearer {issue('push', signed=False).token}"}
    assert_envelope_failure(client.get(f"{API}/bookings", headers=push), 403,
                            "insufficient_scope")

