"""Idempotency-Key on ARI pushes (contract 12.4): a push whose 202 was lost is sent again with
its key and gets the first answer; nothing is stored, queued or applied twice, also when the
repeats arrive at once."""

from __future__ import annotations

import json
import threading

import pytest
from rq import Queue

from connectivity.ari.idempotency import prune_idempotency_keys
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.ari.queue import queue_name
from tests.support.envelope import assert_envelope_failure, assert_envelope_success

from tests.ari.conftest import API, day
from tests.ari.test_accept import GLOBEX

ITEMS = [{"room_type_code": "ACME-DBL", "date": day(0), "availability": 4}]
BODY = json.dumps({"hotel_code": "ACME-LIS", "items": ITEMS}).encode()
RANGES = [{"room_type_code": "ACME-DBL", "from_date": day(0), "to_date": day(2), "closed": True}]


def send(client, push, key, body=BODY, path="/ari", **headers):
    return client.put(API + path, data=body, content_type="application/json",
                      headers=push | {"Idempotency-Key": key} | headers)


def counts(db) -> dict:
    with db.connection() as conn:
        return conn.execute(
            "SELECT (SELECT count(*) FROM ari_batches) AS batches, "
            "(SELECT count(*) FROM ari_idempotency_keys) AS keys").fetchone()


def queued(services, redis_client) -> int:
    return Queue(queue_name(services.redis_prefix), connection=redis_client).count


def test_a_repeat_gets_the_first_answer_and_stores_nothing(client, push, db, services,
                                                           redis_client, work, outcome):
    first = send(client, push, "push-0001")
    accepted = assert_envelope_success(first, 202)
    assert "Idempotent-Replayed" not in first.headers
    again = send(client, push, "push-0001")
    assert assert_envelope_success(again, 202) == accepted
    assert again.headers["Idempotent-Replayed"] == "true"
    assert counts(db) == {"batches": 1, "keys": 1}
    assert queued(services, redis_client) == 1
    assert work() == 1
    # After the apply the repeat still answers the first 202, and queues nothing.
    third = send(client, push, "push-0001")
    assert assert_envelope_success(third, 202) == accepted
    assert queued(services, redis_client) == 0
    assert outcome(accepted["batch_id"])["status"] == "applied"


def test_repeats_at_once_store_one_batch(client, push, db, services, redis_client):
    answers, start = [], threading.Barrier(8)

    def one():
        start.wait()
        answers.append(send(client, push, "at-once"))
    threads = [threading.Thread(target=one) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    bodies = [assert_envelope_success(a, 202) for a in answers]
    assert len({b["batch_id"] for b in bodies}) == 1
    assert sorted(a.headers.get("Idempotent-Replayed", "") for a in answers) == [""] + ["true"] * 7
    assert counts(db) == {"batches": 1, "keys": 1}
    assert queued(services, redis_client) == 1


@pytest.mark.parametrize("body, path", [
    (BODY.replace(b'"availability": 4', b'"availability": 5'), "/ari"),
    (BODY + b" ", "/ari"),  # byte for byte: the same JSON with a trailing space is another body
    (json.dumps({"hotel_code": "ACME-OPO", "items": [
        {"room_type_code": "ACME-TWN", "date": day(0), "availability": 4}]}).encode(), "/ari"),
    (json.dumps({"hotel_code": "ACME-LIS", "items": RANGES}).encode(), "/ari/restrictions"),
])
def test_a_key_reused_for_another_body_or_path_is_422_and_stores_nothing(client, push, db, body,
                                                                          path):
    first = assert_envelope_success(send(client, push, "reused"), 202)
    error = assert_envelope_failure(send(client, push, "reused", body=body, path=path), 422,
                                    "idempotency_key_reused")
    assert error["details"] == {"batch_id": first["batch_id"]}
    assert counts(db) == {"batches": 1, "keys": 1}


def test_keys_belong_to_the_partner_and_environment(client, push, issue, db):
    db.run(load_catalog, parse_catalog(GLOBEX))
    first = assert_envelope_success(send(client, push, "shared-key"), 202)
    # Another partner's key, the same Idempotency-Key and its own hotel code for LIS1: its own.
    globex = {"Authorization": f"Bearer {issue('push', partner='globex', signed=False).token}"}
    theirs = send(client, globex, "shared-key", body=BODY.replace(b"ACME-LIS", b"GLX-1")
                  .replace(b"ACME-DBL", b"G-DBL"))
    assert theirs.status_code == 202 and "Idempotent-Replayed" not in theirs.headers
    # The partner's production environment: its own too.
    production = {"Authorization": "Bearer " + issue("push", environment="production",
                                                      signed=False).token}
    prod = send(client, production, "shared-key", body=BODY.replace(b"ACME-LIS", b"ACME-MAD")
                .replace(b"ACME-DBL", b"P-DBL"))
    assert prod.status_code == 202 and "Idempotent-Replayed" not in prod.headers
    # Another key of the same partner and environment: the same key space.
    second_key = {"Authorization": f"Bearer {issue('push', signed=False, name='k2').token}"}
    replay = send(client, second_key, "shared-key")
    assert replay.status_code == 202 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json["data"]["batch_id"] == first["batch_id"]
    assert counts(db) == {"batches": 3, "keys": 3}


@pytest.mark.parametrize("key", ["", "has space", "x" * 256, "caf\u00e9", "tab\there"])
def test_a_malformed_key_is_422_naming_the_header(client, push, db, key):
    response = client.put(f"{API}/ari", data=BODY, content_type="application/json",
                          headers=push | {"Idempotency-Key": key.encode("utf-8").decode(
                              "latin-1")})
    error = assert_envelope_failure(response, 422, "validation_failed")
    assert list(error["details"]["fields"]) == ["Idempotency-Key"]
    assert counts(db) == {"batches": 0, "keys": 0}


def test_a_request_refused_before_storing_does_not_use_its_key(client, push, db):
    bad = json.dumps({"hotel_code": "ACME-LIS", "items": [{"room_type_code": "ACME-DBL"}]})
    assert_envelope_failure(send(client, push, "after-422", body=bad.encode()), 422,
                            "validation_failed")
    unmapped = json.dumps({"hotel_code": "NOPE", "items": ITEMS}).encode()
    assert_envelope_failure(send(client, push, "after-422", body=unmapped), 404, "not_found")
    assert_envelope_failure(send(client, {}, "after-422"), 401, "missing_credentials")
    assert counts(db) == {"batches": 0, "keys": 0}
    first = send(client, push, "after-422")
    assert first.status_code == 202 and "Idempotent-Replayed" not in first.headers


def test_a_dry_run_neither_uses_nor_reads_keys(client, push, db):
    dry = client.put(f"{API}/ari?dry_run=true", data=BODY, content_type="application/json",
                     headers=push | {"Idempotency-Key": "dry"})
    assert dry.status_code == 200 and "Idempotent-Replayed" not in dry.headers
    assert counts(db) == {"batches": 0, "keys": 0}
    accepted = assert_envelope_success(send(client, push, "dry"), 202)
    # A dry run with a used key and another body is not judged by the key.
    other = BODY.replace(b'"availability": 4', b'"availability": 6')
    dry = client.put(f"{API}/ari?dry_run=true", data=other, content_type="application/json",
                     headers=push | {"Idempotency-Key": "dry"})
    assert dry.status_code == 200
    assert counts(db)["batches"] == 1 and accepted["batch_id"]


def test_a_sandbox_scenario_answering_at_once_uses_no_key(client, push, db):
    forced = send(client, push, "scenario", **{"X-Sandbox-Scenario": "service_unavailable"})
    assert_envelope_failure(forced, 503, "service_unavailable")
    assert counts(db) == {"batches": 0, "keys": 0}
    stored = send(client, push, "scenario", **{"X-Sandbox-Scenario": "delayed_apply"})
    accepted = assert_envelope_success(stored, 202)
    # The scenario header is not part of the request a key stands for: the first answer.
    again = send(client, push, "scenario")
    assert assert_envelope_success(again, 202) == accepted
    assert again.headers["Idempotent-Replayed"] == "true"


def test_ari_prune_items_forgets_keys_older_than_24_hours(app, client, push, db):
    old = assert_envelope_success(send(client, push, "old-key"), 202)
    assert_envelope_success(send(client, push, "new-key"), 202)
    with db.connection() as conn:
        conn.execute("UPDATE ari_idempotency_keys SET created_at = now() - interval '25 hours' "
                     "WHERE idempotency_key = 'old-key'")
    with app.app_context():
        result = app.test_cli_runner().invoke(args=["ari", "prune-items"])
    assert result.exit_code == 0, result.output
    assert "forgot 1 Idempotency-Key(s) used more than 24 hour(s) ago" in result.output
    assert prune_idempotency_keys(db) == 0
    assert counts(db) == {"batches": 2, "keys": 1}
    # Forgotten: the key is new again and stores a new batch.
    renewed = assert_envelope_success(send(client, push, "old-key"), 202)
    assert renewed["batch_id"] != old["batch_id"]


def test_the_openapi_description_documents_the_header_and_the_replay(client):
    spec = client.get(f"{API}/openapi.json").json
    for path in ("/ari", "/ari/restrictions"):
        operation = spec["paths"][API + path]["put"]
        names = [p["name"] for p in operation["parameters"] if p["in"] == "header"]
        assert "Idempotency-Key" in names
        assert "Idempotent-Replayed" in operation["responses"]["202"]["headers"]
        assert "idempotency_key_reused" in json.dumps(operation["responses"]["422"])
