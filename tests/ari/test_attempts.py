"""`ari_batches.attempts` counts every transaction that took a batch, a rolled-back one
included: a job's own batch is counted when the job marks it (mark_processing, committed on its
own), every other batch of a group when the group claims it, and a job whose batch another
job's group applied without it gives its mark back."""

from __future__ import annotations

import threading

import pytest

from connectivity.ari.apply import apply_batch
from tests.ari.conftest import day
from tests.ari.workers import batch_row


class Refused(Exception):
    pass


def refuse(others):
    raise Refused("the group's transaction fails after claiming: rolled back whole")


def lisbon(put) -> str:
    return put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 4}])


def oporto(put) -> str:
    return put([{"room_type_code": "ACME-TWN", "date": day(0), "availability": 2}],
               hotel_code="ACME-OPO")


def test_a_rolled_back_attempt_counts_when_another_jobs_group_applies_the_batch(db, put):
    first, other = lisbon(put), oporto(put)
    with pytest.raises(Refused):
        apply_batch(db, first, on_claimed=refuse)
    assert batch_row(db, first) == {"status": "processing", "attempts": 1, "applied_count": 0}
    # The other batch's job: its group takes the first's hotel and applies it too.
    outcome = apply_batch(db, other)
    assert outcome["others"] == [first]
    assert batch_row(db, first) == {"status": "applied", "attempts": 2, "applied_count": 1}
    assert batch_row(db, other) == {"status": "applied", "attempts": 1, "applied_count": 1}
    # The first's retry finds it applied and counts nothing.
    assert apply_batch(db, first) is None
    assert batch_row(db, first)["attempts"] == 2


def test_a_job_whose_batch_another_group_applied_meanwhile_gives_its_mark_back(db, put):
    first, other = lisbon(put), oporto(put)
    applied_meanwhile = []

    def before_its_transaction(conn):
        # The first's job has marked its batch; before its transaction takes anything, the
        # other batch's job applies a group holding the first batch (another connection).
        if not applied_meanwhile:
            thread = threading.Thread(
                target=lambda: applied_meanwhile.append(apply_batch(db, other)))
            thread.start()
            thread.join()
    assert apply_batch(db, first, on_connection=before_its_transaction) is None
    assert applied_meanwhile[0]["others"] == [first]
    # One transaction took it: the other group's.
    assert batch_row(db, first) == {"status": "applied", "attempts": 1, "applied_count": 1}


def test_a_job_applying_its_own_batch_counts_one_attempt(db, put):
    first = lisbon(put)
    assert apply_batch(db, first)["others"] == []
    assert batch_row(db, first) == {"status": "applied", "attempts": 1, "applied_count": 1}
