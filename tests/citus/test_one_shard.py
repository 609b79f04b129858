"""Single-property paths touch one shard: a booking, a pushed reservation and an ARI apply write
one shard of each of their tables (router statements), and use two-phase commit only when a claim,
distributed by partner, lives on another worker than their rows, distributed by property
(docs/operations.md 6.4). Observed from what the coordinator sends to the workers
(citus.log_remote_commands), through the real request path."""

from __future__ import annotations

import psycopg
import pytest

from tests.api.signing import bearer
from tests.bookings.conftest import START as BOOKING_START
from tests.bookings.conftest import booking_body
from tests.reservations.conftest import reservation

from .conftest import API, PARTNERS, codes, node_of, remote_commands


def test_a_booking_writes_one_shard_and_two_phase_commits_only_across_workers(
        citus, settings, issue, partners):
    rows_node, claims_node = partners
    for partner in PARTNERS:
        key = bearer(issue("pull", partner=partner, rate_limit=100000).token)
        with remote_commands(citus, settings) as (app, sent):
            response = app.test_client().post(
                f"{API}/bookings", json=booking_body(f"{partner}-B1", **codes(partner)),
                headers=key)
        assert response.status_code == 201, response.get_json()
        assert len(sent.shards("bookings")) == 1, sent.sent
        assert len(sent.shards("room_type_days")) == 1, sent.sent
        assert len(sent.shards("booking_claims")) == 1, sent.sent
        if claims_node[partner] == rows_node:
            assert sent.prepared_on() == set(), (partner, sent.sent)
        else:
            assert sent.prepared_on() == {rows_node, claims_node[partner]}, (partner, sent.sent)


def push_reservation(citus, settings, issue, partner: str, reference: str):
    key = bearer(issue("push", partner=partner, signed=False).token)
    body = reservation(reference, hotel_code=f"{partner.upper()}-LIS")
    for room in body["rooms"]:
        room.update(room_type_code=f"{partner.upper()}-DBL", rate_plan_code=f"{partner.upper()}-BAR")
    with remote_commands(citus, settings) as (app, sent):
        response = app.test_client().post(f"{API}/reservations", json=body, headers=key)
    assert response.status_code == 201, response.get_json()
    return sent


def test_a_pushed_reservation_writes_one_shard_of_each_table(citus, settings, issue, partners):
    rows_node, _ = partners
    for partner in PARTNERS:
        sent = push_reservation(citus, settings, issue, partner, f"{partner}-R1")
        for table in ("reservations", "reservation_versions", "reservation_nights",
                      "room_type_days", "reservation_claims"):
            assert len(sent.shards(table)) == 1, (table, sent.sent)
        with psycopg.connect(citus.url) as conn:
            partner_id = conn.execute("SELECT id FROM partners WHERE code = %s",
                                      (partner,)).fetchone()[0]
            claim_node = node_of(conn, "reservation_claims", partner_id)
        assert sent.nodes() == {rows_node, claim_node}, sent.sent


@pytest.mark.xfail(strict=True, reason=(
    "found on the cluster: the reservation path's INSERT ... SELECT statements (into "
    "reservation_versions and reservation_nights) are not routed; Citus pulls their rows "
    "through the coordinator as intermediate results, and then commits with two-phase commit "
    "even when every row is on one worker (for the schema side of issue 17)"))
def test_a_pushed_reservation_two_phase_commits_only_across_workers(citus, settings, issue,
                                                                    partners):
    rows_node, claims_node = partners
    beside = next(p for p in PARTNERS if claims_node[p] == rows_node)
    sent = push_reservation(citus, settings, issue, beside, "SAME-NODE-R1")
    assert sent.prepared_on() == set(), sent.sent


def apply_one_batch(citus, settings, services, issue):
    """A batch for LIS1, accepted and applied by a real RQ worker, with what the coordinator
    sent for it."""
    import redis
    from rq import SimpleWorker

    from connectivity.ari import jobs
    from connectivity.ari.queue import queue_name

    key = bearer(issue("push", signed=False).token)
    day = BOOKING_START.isoformat()
    items = [{"room_type_code": "ACME-DBL", "date": day, "availability": 7},
             {"room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR", "date": day,
              "rate": "120.50", "currency": "EUR", "min_stay": 2}]
    client = redis.Redis.from_url(services.redis_url)
    with remote_commands(citus, settings) as (app, sent):
        response = app.test_client().put(f"{API}/ari", json={"hotel_code": "ACME-LIS",
                                                              "items": items}, headers=key)
        assert response.status_code == 202, response.get_json()
        jobs.use_database(app.extensions["connectivity.db"])
        try:
            SimpleWorker([queue_name(services.redis_prefix)], connection=client).work(burst=True)
        finally:
            jobs.use_database(None)
    client.close()
    batch = response.get_json()["data"]["batch_id"]
    with psycopg.connect(citus.url) as conn:
        assert conn.execute("SELECT status FROM ari_batches WHERE id = %s",
                            (batch,)).fetchone()[0] == "applied"
    return sent


def test_an_ari_apply_writes_the_day_tables_on_one_shard(citus, settings, services, issue,
                                                        partners):
    rows_node, _ = partners
    sent = apply_one_batch(citus, settings, services, issue)
    for table in ("room_type_days", "rate_plan_days"):
        assert len(sent.shards(table)) == 1, (table, sent.sent)
        assert {p for p, c in sent.sent if f"{table}_" in c} == {rows_node}, sent.sent


@pytest.mark.xfail(strict=True, reason=(
    "found on the cluster: the ARI worker finds a batch by id and marks its group's batches "
    "processing / applied with statements that do not name the property, so they run on every "
    "shard of ari_batches and each apply commits with two-phase commit across both workers; "
    "accepting a batch (the property counter and the batch in one INSERT ... SELECT) commits "
    "with two-phase commit on one worker (for the schema side of issue 17)"))
def test_an_ari_apply_touches_one_shard_of_ari_batches_without_2pc(citus, settings, services,
                                                                   issue, partners):
    sent = apply_one_batch(citus, settings, services, issue)
    assert len(sent.shards("ari_batches")) == 1, sent.sent
    assert sent.prepared_on() == set(), sent.sent
