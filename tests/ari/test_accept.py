"""Accepting a push: the field rules (422, nothing stored), the caps, who may push and read a
batch."""

from __future__ import annotations

import threading

import psycopg
import pytest

from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.support.envelope import assert_envelope_failure, assert_envelope_success

from tests.ari.conftest import API, day

GOOD_ARI = {"room_type_code": "ACME-DBL", "date": day(0), "availability": 1}
GOOD_RANGE = {"room_type_code": "ACME-DBL", "from_date": day(0), "to_date": day(3)}


def stored_batches(db) -> int:
    with db.connection() as conn:
        return conn.execute("SELECT count(*) AS n FROM ari_batches").fetchone()["n"]


@pytest.mark.parametrize("item, path", [
    ({"date": day(0)}, "items.0.room_type_code"),
    ({"room_type_code": "", "date": day(0)}, "items.0.room_type_code"),
    ({"room_type_code": "X" * 121, "date": day(0)}, "items.0.room_type_code"),
    ({"room_type_code": "A", "rate_plan_code": "X" * 121, "date": day(0)},
     "items.0.rate_plan_code"),
    ({"room_type_code": "A"}, "items.0.date"),
    ({"room_type_code": "A", "date": "20261201"}, "items.0.date"),
    ({"room_type_code": "A", "date": day(0), "availability": 10000}, "items.0.availability"),
    ({"room_type_code": "A", "date": day(0), "availability": -1}, "items.0.availability"),
    ({"room_type_code": "A", "date": day(0), "availability": 2.5}, "items.0.availability"),
    ({"room_type_code": "A", "date": day(0), "availability": "3"}, "items.0.availability"),
    ({"room_type_code": "A", "date": day(0), "rate": -0.01}, "items.0.rate"),
    ({"room_type_code": "A", "date": day(0), "rate": "abc"}, "items.0.rate"),
    ({"room_type_code": "A", "date": day(0), "rate": True}, "items.0.rate"),
    ({"room_type_code": "A", "date": day(0), "rate": "1e-9999"}, "items.0.rate"),
    ({"room_type_code": "A", "date": day(0), "rate": 1e13}, "items.0.rate"),
    ({"room_type_code": "A", "date": day(0), "single_rate": -1}, "items.0.single_rate"),
    ({"room_type_code": "A", "date": day(0), "extra_adult_rate": "x"},
     "items.0.extra_adult_rate"),
    ({"room_type_code": "A", "date": day(0), "extra_child_rate": None},
     "items.0.extra_child_rate"),
    ({"room_type_code": "A", "date": day(0), "currency": "EURO"}, "items.0.currency"),
    ({"room_type_code": "A", "date": day(0), "currency": "XYZ"}, "items.0.currency"),
    ({"room_type_code": "A", "date": day(0), "closed": "yes"}, "items.0.closed"),
    ({"room_type_code": "A", "date": day(0), "closed_to_arrival": 1},
     "items.0.closed_to_arrival"),
    ({"room_type_code": "A", "date": day(0), "closed_to_departure": "true"},
     "items.0.closed_to_departure"),
    ({"room_type_code": "A", "date": day(0), "min_stay": 0}, "items.0.min_stay"),
    ({"room_type_code": "A", "date": day(0), "max_stay": 366}, "items.0.max_stay"),
    ({"room_type_code": "A", "date": day(0), "partner_id": 2}, "items.0.partner_id"),
])
def test_a_field_rule_violation_rejects_the_whole_ari_request(client, push, db, item, path):
    response = client.put(f"{API}/ari", json={"hotel_code": "ACME-LIS",
                                              "items": [GOOD_ARI, GOOD_ARI | {}, item][::-1]},
                          headers=push)
    error = assert_envelope_failure(response, 422, "validation_failed")
    assert list(error["details"]["fields"]) == [path]
    assert stored_batches(db) == 0


@pytest.mark.parametrize("item, path", [
    (GOOD_RANGE | {"to_date": day(-1)}, "items.0.to_date"),
    ({"room_type_code": "A", "to_date": day(0)}, "items.0.from_date"),
    (GOOD_RANGE | {"days_of_week": [7]}, "items.0.days_of_week.0"),
    (GOOD_RANGE | {"days_of_week": [-1]}, "items.0.days_of_week.0"),
    (GOOD_RANGE | {"days_of_week": []}, "items.0.days_of_week"),
    (GOOD_RANGE | {"days_of_week": [0, 1, 2, 3, 4, 5, 6, 0]}, "items.0.days_of_week"),
    (GOOD_RANGE | {"min_stay": 366}, "items.0.min_stay"),
    (GOOD_RANGE | {"availability": 3}, "items.0.availability"),
    (GOOD_RANGE | {"rate": 3}, "items.0.rate"),
    (GOOD_RANGE | {"date": day(0)}, "items.0.date"),
])
def test_a_field_rule_violation_rejects_the_whole_restrictions_request(client, push, db, item,
                                                                       path):
    response = client.put(f"{API}/ari/restrictions",
                          json={"hotel_code": "ACME-LIS", "items": [item, GOOD_RANGE]},
                          headers=push)
    error = assert_envelope_failure(response, 422, "validation_failed")
    assert list(error["details"]["fields"]) == [path]
    assert stored_batches(db) == 0


@pytest.mark.parametrize("path, cap, item", [("/ari", 5000, GOOD_ARI),
                                             ("/ari/restrictions", 1000, GOOD_RANGE)])
def test_the_item_caps_are_hard(client, push, db, path, cap, item):
    over = client.put(API + path, json={"hotel_code": "ACME-LIS", "items": [item] * (cap + 1)},
                      headers=push)
    assert "items" in assert_envelope_failure(over, 422, "validation_failed")["details"]["fields"]
    empty = client.put(API + path, json={"hotel_code": "ACME-LIS", "items": []}, headers=push)
    assert "items" in assert_envelope_failure(empty, 422, "validation_failed")["details"]["fields"]
    assert stored_batches(db) == 0
    at_cap = client.put(API + path, json={"hotel_code": "ACME-LIS", "items": [item] * cap},
                        headers=push)
    assert assert_envelope_success(at_cap, 202)["item_count"] == cap


def test_every_failing_path_is_listed_at_once(client, push):
    response = client.put(f"{API}/ari", json={"items": [
        {"room_type_code": "A", "date": "x"}, {"date": day(0), "min_stay": 0}]}, headers=push)
    fields = assert_envelope_failure(response, 422, "validation_failed")["details"]["fields"]
    assert set(fields) == {"hotel_code", "items.0.date", "items.1.room_type_code",
                           "items.1.min_stay"}


def test_a_hotel_not_mapped_for_the_caller_is_404_and_stores_nothing(client, push, db):
    for code in ("NOPE", "GLX-1"):
        response = client.put(f"{API}/ari", json={"hotel_code": code, "items": [GOOD_ARI]},
                              headers=push)
        assert_envelope_failure(response, 404, "not_found")
    assert stored_batches(db) == 0


def test_a_paused_distribution_still_accepts_ari(client, push, db, runner_pause):
    runner_pause("acme", "LIS1")
    response = client.put(f"{API}/ari", json={"hotel_code": "ACME-LIS", "items": [GOOD_ARI]},
                          headers=push)
    assert assert_envelope_success(response, 202)["status"] == "queued"


def test_a_batch_is_visible_to_its_partners_push_keys_only(client, db, issue, put, outcome):
    db.run(load_catalog, parse_catalog(GLOBEX))
    batch_id = put([GOOD_ARI])
    restrictions_only = issue("none", signed=False, extra_scopes=["restriction.write"])
    assert outcome(batch_id, headers=bearer(restrictions_only))["batch_id"] == batch_id

    globex = bearer(issue("push", partner="globex", signed=False))
    production = bearer(issue("push", environment="production", signed=False))
    for headers in (globex, production):
        response = client.get(f"{API}/ari/batches/{batch_id}", headers=headers)
        assert_envelope_failure(response, 404, "not_found")
    pull = client.get(f"{API}/ari/batches/{batch_id}", headers=bearer(issue("pull")))
    assert_envelope_failure(pull, 403, "insufficient_scope")


def test_an_unknown_or_malformed_batch_id_is_404(client, push):
    for batch_id in ("00000000-0000-0000-0000-000000000000", "a" * 65, "bad_id"):
        assert_envelope_failure(client.get(f"{API}/ari/batches/{batch_id}", headers=push),
                                404, "not_found")


def test_the_database_refuses_an_impossible_batch(db, put):
    batch_id = put([GOOD_ARI])
    with pytest.raises(psycopg.errors.CheckViolation):
        with db.connection() as conn:
            conn.execute("UPDATE ari_batches SET status = 'applied' WHERE id = %s", (batch_id,))


GLOBEX = """{"properties": [{"code": "PRD1", "name": "Prod Hotel", "environment": "production",
   "country": "ES", "timezone": "Europe/Madrid", "currency": "EUR", "max_child_age": 10,
   "room_types": [{"code": "DBL", "name": "Double", "max_occupancy": 2}], "rate_plans": []}],
 "partners": [
   {"code": "globex", "name": "Globex", "mappings": [
     {"property": "LIS1", "hotel_code": "GLX-1", "room_types": {"DBL": "G-DBL"}}]},
   {"code": "acme", "name": "Acme Travel", "mappings": [
     {"property": "PRD1", "hotel_code": "ACME-MAD", "room_types": {"DBL": "P-DBL"}}]}]}"""


def bearer(key) -> dict:
    return {"Authorization": f"Bearer {key.token}"}


@pytest.fixture
def runner_pause(app):
    def _pause(partner: str, prop: str) -> None:
        result = app.test_cli_runner().invoke(
            args=["distribution", "pause", "--partner", partner, "--property", prop])
        assert result.exit_code == 0, result.output
    return _pause


def test_each_hotel_counts_its_own_acceptance_order(client, push, db, put):
    """ari_batches.seq comes from the hotel's counter (property_counters), one number after the
    other whatever the concurrency: under Citus a global sequence would not be an order."""
    lisbon = [put([GOOD_ARI]) for _ in range(2)]
    threads = [threading.Thread(target=lambda: lisbon.append(put([GOOD_ARI])))
               for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    oporto = put([{"room_type_code": "ACME-TWN", "date": day(0), "availability": 1}],
                 hotel_code="ACME-OPO")
    with db.connection() as conn:
        seqs = {r["id"]: r["seq"] for r in conn.execute("SELECT id, seq FROM ari_batches")}
        counters = {r["code"]: r["last_batch_seq"] for r in conn.execute(
            "SELECT p.code, c.last_batch_seq FROM property_counters c "
            "JOIN properties p ON p.id = c.property_id")}
    assert sorted(seqs[b] for b in lisbon) == list(range(1, 11))
    assert seqs[lisbon[0]] == 1 and seqs[lisbon[1]] == 2
    assert seqs[oporto] == 1
    assert counters == {"LIS1": 10, "OPO1": 1}
