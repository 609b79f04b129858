"""GET /reservations/{reference} (contract 12.1): the reservation, its versions (a redelivery is
not one) and reconciliation items, `orphan` always a boolean, 404 for another partner's."""

from __future__ import annotations

from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.events.conftest import GLOBEX_RECEIVER
from tests.reservations.conftest import API, bearer, lisbon, push, reservation  # noqa: F401
from tests.support.envelope import assert_envelope_failure, assert_envelope_success


def _get(client, headers, reference):
    return client.get(f"{API}/reservations/{reference}", headers=headers)


def test_versions_and_reconciliation_of_a_reservation(client, push, lisbon):
    body = reservation("CM-R1", sell_amount="999.00")
    first = assert_envelope_success(client.post(f"{API}/reservations", json=body, headers=push),
                                    201)
    client.post(f"{API}/reservations", json=body, headers=push)  # a redelivery
    cancelled = assert_envelope_success(client.post(f"{API}/reservations/CM-R1/cancel",
                                                    json={}, headers=push))
    data = assert_envelope_success(_get(client, push, "CM-R1"))
    assert data["reservation"] == {**cancelled["reservation"], "orphan": False}
    assert [(v["version"], v["status"]) for v in data["versions"]] == [(1, "confirmed"),
                                                                       (2, "cancelled")]
    assert data["versions"][0]["ack_id"] == first["acknowledgement"]["ack_id"]
    assert [i["code"] for i in data["reconciliation"]] == ["nightly_rates_mismatch"]
    assert data["reconciliation"][0]["resolved_at"] is None


def test_a_cancel_before_its_reservation_is_an_orphan(client, push, lisbon):
    assert client.post(f"{API}/reservations/CM-R2/cancel", json={"hotel_code": "ACME-LIS"},
                       headers=push).status_code == 200
    data = assert_envelope_success(_get(client, push, "CM-R2"))
    assert (data["reservation"]["status"], data["reservation"]["orphan"]) == ("cancelled", True)
    assert [v["status"] for v in data["versions"]] == ["cancelled"]


def test_unknown_or_another_partners_is_404_and_a_pull_key_403(client, push, lisbon, issue,
                                                               db):
    assert client.post(f"{API}/reservations", json=reservation("CM-R3"),
                       headers=push).status_code == 201
    assert_envelope_failure(_get(client, push, "CM-NONE"), 404, "not_found")
    db.run(load_catalog, parse_catalog(GLOBEX_RECEIVER))
    globex = bearer(issue("push", partner="globex", signed=False).token)
    assert_envelope_failure(_get(client, globex, "CM-R3"), 404, "not_found")
    cancel_only = bearer(issue("none", extra_scopes=("reservation.cancel",)).token)
    assert assert_envelope_success(_get(client, cancel_only, "CM-R3"))["reservation"][
        "partner_reference"] == "CM-R3"
    assert_envelope_failure(_get(client, bearer(issue("pull").token), "CM-R3"), 403,
                            "insufficient_scope")
