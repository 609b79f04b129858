"""A job applies its hotel's waiting batches in one transaction (ari/apply.py): each batch keeps
its own outcome, the other batches' jobs find theirs finished, a group is bounded, a hotel's
batches take effect in acceptance order across workers, and a worker killed mid-group leaves
every batch of the group to be applied exactly once."""

from __future__ import annotations

import threading

import psycopg
from psycopg.rows import dict_row
from rq.job import Job, JobStatus

from connectivity.ari import apply
from connectivity.ari.apply import apply_batch
from connectivity.ari.queue import requeue_stranded_batches
from tests.support import lockwaits
from tests.support.ari_days import set_room_days

from tests.ari.conftest import START, day
from tests.ari.workers import (batch_row, hold_room_day, kill_with_work_horses, start_worker, wait_for,
                      worker_backends, worker_transactions_ended, worker_waiting_on_lock)


def finished(db, batch_id: str) -> dict:
    with db.connection() as conn:
        return conn.execute("SELECT status, attempts, applied_count, rejected_count, applied_at "
                            "FROM ari_batches WHERE id = %s", (batch_id,)).fetchone()


def test_one_job_applies_the_waiting_batches_each_with_its_own_outcome(db, put, work,
                                                                        outcome, room_days):
    applied = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 1}])
    partly = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 2},
                  {"room_type_code": "NOPE", "date": day(0), "availability": 5}])
    refused = put([{"room_type_code": "NOPE", "date": day(1), "availability": 5}])
    other_hotel = put([{"room_type_code": "ACME-TWN", "date": day(0), "availability": 3}],
                      hotel_code="ACME-OPO")

    # The first batch's job, run directly: every waiting batch goes in one transaction. The
    # others come in no promised order (on Citus, the claim's rows come back shard by shard).
    result = apply_batch(db, applied)
    assert {**result, "others": sorted(result["others"])} == {
        "applied_count": 1, "rejected_count": 0,
        "others": sorted([partly, refused, other_hotel])}
    assert [outcome(b)["status"] for b in (applied, partly, refused, other_hotel)] == [
        "applied", "partially_applied", "rejected", "applied"]
    assert outcome(partly)["rejected"] == [{
        "index": 1, "code": "unknown_room_type",
        "message": "room type 'NOPE' is not mapped for this hotel"}]
    assert (outcome(refused)["applied_count"], outcome(refused)["rejected_count"]) == (0, 1)
    # The newer batch's value won, as between separate transactions.
    assert room_days("LIS1", "DBL")[day(0)]["available"] == 2
    assert room_days("OPO1", "TWN")[day(0)]["available"] == 3

    # Every job runs (run directly above, none was dropped from the queue), and finds its batch
    # applied: each was applied once.
    assert work() == 4
    assert [finished(db, b)["attempts"] for b in (applied, partly, refused, other_hotel)] == [
        1, 1, 1, 1]


def test_a_group_leaves_out_the_hotels_another_worker_holds(services, db, put, outcome):
    mine = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 1}])
    held = put([{"room_type_code": "ACME-TWN", "date": day(0), "availability": 3}],
               hotel_code="ACME-OPO")
    with psycopg.connect(services.database_url) as other_worker:
        # What a worker applying OPO1's batches holds (claim_group.sql lock_hotel).
        other_worker.execute(
            "SELECT pg_advisory_xact_lock(hashtext('connectivity.ari_hotel'), id::integer) "
            "FROM properties WHERE code = 'OPO1'")
        assert apply_batch(db, mine)["others"] == []
        assert outcome(held)["status"] == "queued"
    assert apply_batch(db, held)["others"] == []


def test_a_group_is_bounded_and_a_batch_behind_it_is_applied_in_a_later_round(
        db, put, monkeypatch, room_days):
    monkeypatch.setattr(apply, "GROUP_MAX_BATCHES", 2)
    batches = [put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": n}])
               for n in (1, 2, 3)]
    # The last batch's job: two batches wait before it, a group holds two.
    assert apply_batch(db, batches[2]) == {"applied_count": 1, "rejected_count": 0,
                                           "others": []}
    rows = [finished(db, b) for b in batches]
    assert [r["status"] for r in rows] == ["applied"] * 3
    assert rows[0]["applied_at"] < rows[2]["applied_at"]  # two transactions, oldest first
    assert room_days("LIS1", "DBL")[day(0)]["available"] == 3


def test_a_group_stops_at_the_item_bound_but_always_takes_the_oldest_batch(db, put,
                                                                          monkeypatch):
    monkeypatch.setattr(apply, "GROUP_MAX_ITEMS", 3)
    big = put([{"room_type_code": "ACME-DBL", "date": day(d), "availability": 1}
               for d in range(4)])
    small = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 2}])
    assert apply_batch(db, big)["others"] == []  # 4 items: alone, over the bound
    assert finished(db, small)["status"] == "queued"
    assert apply_batch(db, small)["others"] == []


def test_a_later_batch_of_a_hotel_waits_for_the_worker_applying_an_earlier_one(
        services, settings, db, put, room_days):
    set_room_days(db, "LIS1", "DBL", [START], available=3)
    first = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 9}])
    workers = []
    try:
        with psycopg.connect(services.database_url) as blocker:
            # Hold the row the first batch writes: its worker stops inside its transaction.
            hold_room_day(blocker, "LIS1", START)
            workers.append(start_worker(services, settings))
            assert wait_for(lambda: worker_waiting_on_lock(services.database_url), 60), \
                "the first worker never reached the locked row"
            # A second batch of the same hotel, on a row nobody holds, and a second worker.
            second = put([{"room_type_code": "ACME-DBL", "date": day(1), "availability": 5}])
            workers.append(start_worker(services, settings))
            assert wait_for(lambda: sum(s["waiting"] for s in
                                        worker_backends(services.database_url)) == 2, 60), \
                "the second worker never waited for the hotel"
            # It waits for the hotel: the later batch is not applied before the earlier one.
            assert batch_row(db, second)["status"] == "processing"
            assert day(1) not in room_days("LIS1", "DBL")
            blocker.rollback()
        for worker in workers:
            assert worker.wait(timeout=60) == 0
    finally:
        for worker in workers:
            if worker.poll() is None:
                kill_with_work_horses(worker)
    one, two = finished(db, first), finished(db, second)
    assert (one["status"], one["attempts"], two["status"], two["attempts"]) == (
        "applied", 1, "applied", 1)
    assert one["applied_at"] < two["applied_at"]
    rooms = room_days("LIS1", "DBL")
    assert (rooms[day(0)]["available"], rooms[day(1)]["available"]) == (9, 5)


def test_a_worker_killed_mid_group_leaves_every_batch_to_be_applied_exactly_once(
        services, settings, db, put, batch_queue, work, room_days):
    set_room_days(db, "LIS1", "DBL", [START], available=3)
    first = put([{"room_type_code": "ACME-DBL", "date": day(1), "availability": 7}])
    second = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 9}])
    with psycopg.connect(services.database_url) as blocker:
        # The group's upsert stops at the second batch's row, the first's already staged.
        hold_room_day(blocker, "LIS1", START)
        worker = start_worker(services, settings)
        try:
            assert wait_for(lambda: worker_waiting_on_lock(services.database_url), 60), \
                "the worker never reached the locked row"
            kill_with_work_horses(worker)
        finally:
            if worker.poll() is None:
                kill_with_work_horses(worker)
        blocker.rollback()
    assert wait_for(lambda: worker_transactions_ended(services.database_url))
    # Rolled back whole: neither batch finished, none of their values written.
    assert [batch_row(db, b)["status"] for b in (first, second)] == ["processing", "queued"]
    rooms = room_days("LIS1", "DBL")
    assert day(1) not in rooms and rooms[day(0)]["available"] == 3

    # The killed job is STARTED with a stale heartbeat, and the second's job was taken off the
    # queue when the group was claimed: recovery requeues both.
    assert requeue_stranded_batches(db, batch_queue, older_than_seconds=0,
                                    heartbeat_grace_seconds=0) == [first, second]
    # The first's job applies both and drops the second's.
    assert work() == 1
    assert batch_row(db, first) == {"status": "applied", "attempts": 2, "applied_count": 1}
    assert batch_row(db, second) == {"status": "applied", "attempts": 1, "applied_count": 1}
    rooms = room_days("LIS1", "DBL")
    assert (rooms[day(0)]["available"], rooms[day(1)]["available"]) == (9, 7)


def test_the_jobs_of_a_groups_other_batches_are_dropped_from_the_queue(put, work, outcome,
                                                                       batch_queue):
    batches = [put([{"room_type_code": "ACME-DBL", "date": day(n), "availability": n}])
               for n in range(5)]
    assert batch_queue.queue.count == 5
    assert work() == 1  # the first job's group applied all five; the four others were dropped
    assert batch_queue.queue.count == 0
    assert not any(Job.exists(b, connection=batch_queue.connection) for b in batches[1:])
    assert [outcome(b)["status"] for b in batches] == ["applied"] * 5


def test_a_job_whose_hotel_another_worker_holds_applies_other_hotels_then_waits_for_its_own(
        services, db, put, outcome):
    mine = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 1}])
    other = put([{"room_type_code": "ACME-TWN", "date": day(0), "availability": 3}],
                hotel_code="ACME-OPO")
    result = {}
    with psycopg.connect(services.database_url) as other_worker:
        # What a worker applying LIS1's batches holds (claim_group.sql try_lock_hotels).
        other_worker.execute(
            "SELECT pg_advisory_xact_lock(hashtext('connectivity.ari_hotel'), id::integer) "
            "FROM properties WHERE code = 'LIS1'")
        job = threading.Thread(target=lambda: result.update(outcome=apply_batch(db, mine)))
        job.start()
        try:
            assert wait_for(lambda: outcome(other)["status"] == "applied", 60)
            # Then it waits for the hotel, its own batch untouched.
            assert wait_for(lambda: lockwaits.waiting(services.database_url), 60)
            assert outcome(mine)["status"] == "processing"
        finally:
            other_worker.rollback()
            job.join(60)
    assert result["outcome"] == {"applied_count": 1, "rejected_count": 0, "others": []}
    assert outcome(mine)["status"] == "applied"


def test_a_worker_takes_a_groups_worth_of_hotels_and_a_second_the_next_ones(
        services, db, put, monkeypatch):
    monkeypatch.setattr(apply, "GROUP_MAX_BATCHES", 1)
    put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 1}])
    put([{"room_type_code": "ACME-TWN", "date": day(0), "availability": 3}],
        hotel_code="ACME-OPO")
    with db.connection() as conn:
        lisbon, porto = (conn.execute("SELECT id FROM properties WHERE code = %s",
                                      (code,)).fetchone()["id"] for code in ("LIS1", "OPO1"))
    with psycopg.connect(services.database_url, row_factory=dict_row) as first, \
            psycopg.connect(services.database_url, row_factory=dict_row) as second:
        # No job's own hotel (property 0): what each worker's group would take besides.
        assert apply.lock_waiting_hotels(first, 0) == [lisbon]  # the oldest batch's hotel only
        assert apply.lock_waiting_hotels(second, 0) == [porto]  # the next one, not none


def test_a_job_whose_batch_another_workers_group_holds_leaves_it_to_that_group(
        services, db, put, outcome):
    batch_id = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 1}])
    with psycopg.connect(services.database_url) as other_worker:
        # What a worker's group holds while it applies the batch (claim_batches).
        # (Naming the hotel: on Citus a FOR UPDATE must be a router query, on one shard.)
        [hotel] = other_worker.execute("SELECT property_id FROM ari_batches WHERE id = %s",
                                       (batch_id,)).fetchone()
        other_worker.execute("SELECT 1 FROM ari_batches WHERE property_id = %s AND id = %s "
                             "FOR UPDATE", (hotel, batch_id))
        assert apply_batch(db, batch_id) is None  # at once: no wait for the other's commit
        assert outcome(batch_id)["status"] == "queued"
    # That group rolled back (the lock was all it held): the batch is still there to apply.
    assert apply_batch(db, batch_id)["applied_count"] == 1


def test_a_group_that_fails_puts_its_other_batches_jobs_back(db, put, work, batch_queue,
                                                              refused_day_rows):
    first = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 2}])
    second = put([{"room_type_code": "ACME-DBL", "date": day(1), "availability": 2}])
    assert work() == 0  # both jobs failed: the second was put back, and ran again
    for batch_id in (first, second):
        assert Job.fetch(batch_id, connection=batch_queue.connection).get_status() == \
            JobStatus.SCHEDULED  # a retry is due: nothing lost
        assert batch_row(db, batch_id)["status"] in ("queued", "processing")


def test_a_batch_waiting_for_its_apply_after_holds_back_its_hotels_later_ones(db, put, work,
                                                                              room_days):
    # A sandbox batch pushed with X-Sandbox-Scenario: delayed_apply, still an hour from its
    # time; the batch accepted after it, for the same hotel, must not apply before it.
    delayed = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 2}])
    later = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 5}])
    with db.connection() as conn:
        conn.execute("UPDATE ari_batches SET sandbox_scenario = 'delayed_apply', "
                     "apply_after = now() + interval '1 hour' WHERE id = %s", (delayed,))
    work()
    assert batch_row(db, delayed)["status"] in ("queued", "processing")
    assert batch_row(db, later)["status"] in ("queued", "processing")
    assert room_days("LIS1", "DBL").get(day(0), {}).get("available") is None

    with db.connection() as conn:  # its time has come
        conn.execute("UPDATE ari_batches SET apply_after = now() - interval '1 second' "
                     "WHERE id = %s", (delayed,))
    assert apply_batch(db, delayed)["others"] == [later]
    assert batch_row(db, delayed)["status"] == batch_row(db, later)["status"] == "applied"
    assert room_days("LIS1", "DBL")[day(0)]["available"] == 5
