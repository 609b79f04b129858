"""A reservation's claim proves its row exists: a delivery that finds the claim but not the row
(on Citus, between the two workers' commits; store/claimed.py) reads the claim and the row again,
and at the bound answers 503 `service_unavailable` with Retry-After, never 404 and never an
endless retry. Here the claim is written alone, so the row never shows; the bound is shortened
to keep the tests quick."""

from __future__ import annotations

import pytest

from connectivity.store import claimed
from tests.support.envelope import assert_envelope_failure

from tests.reservations.conftest import post, reservation


@pytest.fixture
def claim_alone(db, monkeypatch, catalog):
    """A committed claim of CM-1 whose reservation row is not there."""
    monkeypatch.setattr(claimed, "WAIT_SECONDS", 0.05)

    def write(conn):
        conn.execute(
            "INSERT INTO reservation_claims (partner_id, environment, partner_reference, "
            "property_id, reservation_id) SELECT pa.id, 'sandbox', 'CM-1', pr.id, "
            "nextval('reservations_id_seq') FROM partners pa, properties pr "
            "WHERE pa.code = 'acme' AND pr.code = 'LIS1'")
    db.run(write)


@pytest.mark.parametrize("path, body", [
    ("/reservations", reservation()),
    ("/reservations/CM-1/cancel", {}),
    ("/reservations/CM-1/modify", {"check_in": reservation()["check_in"],
                                   "check_out": reservation()["check_out"],
                                   "rooms": [{"room_type_code": "ACME-DBL", "quantity": 1,
                                              "adults": 2}],
                                   "net_amount": "170.00", "net_currency": "EUR"}),
], ids=["push", "cancel", "modify"])
def test_a_delivery_for_a_claimed_row_not_visible_is_503(client, push, lisbon, claim_alone,
                                                         db, path, body):
    response = post(client, path, body, push)
    assert_envelope_failure(response, 503, "service_unavailable")
    assert response.headers["Retry-After"] == "1"
    assert db.run(lambda c: c.execute("SELECT count(*) AS n FROM reservation_versions")
                  .fetchone())["n"] == 0
