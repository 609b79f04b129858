"""Single-property paths touch one shard: a booking, a pushed reservation and an ARI apply write
one shard of each of their tables (router statements), their events included, and use
two-phase commit only when a claim, distributed by partner, lives on another worker than their
rows, distributed by property (docs/operations.md 6.4). Observed from what the coordinator sends to the workers
(citus.log_remote_commands), through the real request path."""

from __future__ import annotations

import re

import psycopg

from tests.support.signing import bearer
from tests.bookings.conftest import START as BOOKING_START
from tests.bookings.conftest import booking_body
from tests.reservations.conftest import reservation

from tests.system.citus.conftest import API, PARTNERS, codes, node_of, remote_commands
from connectivity.web.services import services_of


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
        # Its events (booking.confirmed, and hotel_booking.confirmed for LIS1's receiver in the
        # demo catalogue) beside the booking: the same shard, no phase more.
        events, nodes = written(sent, "event_log")
        assert len(events) == 1 and nodes == written(sent, "bookings")[1], sent.sent
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
        jobs.use_database(services_of(app).db)
        try:
            SimpleWorker([queue_name(services.redis_prefix)], connection=client).work(burst=True)
        finally:
            jobs.use_database(None)
    client.close()
    batch = response.get_json()["data"]["batch_id"]
    with psycopg.connect(citus.url) as conn:
        assert conn.execute("SELECT status FROM ari_batches WHERE id = %s",
                            (batch,)).fetchone()[0] == "applied"
    return sent, batch


def written(sent, table: str) -> tuple[set[str], set[int]]:
    """The shards of `table` that INSERT, UPDATE or COPY statements wrote, and their nodes."""
    pattern = re.compile(rf"^(?:INSERT INTO|UPDATE|COPY) public\.{re.escape(table)}_(\d+)\b")
    hits = [(pattern.match(c), port) for port, c in sent.sent]
    return {m[1] for m, _ in hits if m}, {port for m, port in hits if m}


def test_an_ari_apply_writes_one_shard_on_one_worker(citus, settings, services, issue, partners):
    """Accept and apply write LIS1's shard of each table only, and every statement that names
    the batch reads that shard: the job carries the batch's hotel (the read of the hotels'
    waiting batches does fan out: it looks for other hotels)."""
    rows_node, _ = partners
    sent, batch = apply_one_batch(citus, settings, services, issue)
    for table in ("ari_batches", "property_counters", "room_type_days", "rate_plan_days",
                  "ari_staged_values", "event_log"):
        shards, nodes = written(sent, table)
        assert len(shards) == 1 and nodes == {rows_node}, (table, shards, nodes, sent.sent)
    naming = {shard for _, command in sent.sent if batch in command
              for shard in re.findall(r"\bpublic\.ari_batches_(\d+)\b", command)}
    assert len(naming) == 1, [c for _, c in sent.sent if batch in c]


def test_an_ari_apply_commits_without_two_phase_commit(citus, settings, services, issue,
                                                       partners):
    sent, _ = apply_one_batch(citus, settings, services, issue)
    assert sent.prepared_on() == set(), sent.sent
