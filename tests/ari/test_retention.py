"""`flask --app app ari prune-items`: old finished batches lose their items, never their outcome;
unfinished, failed and recent batches keep everything."""

from __future__ import annotations

from tests.operator.conftest import output_of

from tests.ari.conftest import day


def age(db, batch_id: str, days: int) -> None:
    # Two statements rather than a CASE (an unfinished batch's applied_at stays NULL): on Citus
    # an UPDATE of a distributed table may call no function in a CASE, and no STABLE one (as
    # timestamptz - interval is) on a column.
    def run(conn):
        conn.execute("UPDATE ari_batches SET received_at = now() - make_interval(days => %s + 1) "
                     "WHERE id = %s", (days, batch_id))
        conn.execute("UPDATE ari_batches SET applied_at = now() - make_interval(days => %s) "
                     "WHERE id = %s AND applied_at IS NOT NULL", (days, batch_id))
    db.run(run)


def stored(db, batch_id: str) -> dict:
    return db.run(lambda c: c.execute(
        "SELECT items, items_pruned_at, status FROM ari_batches WHERE id = %s",
        (batch_id,)).fetchone())


def test_prune_keeps_every_outcome_and_only_drops_old_finished_items(app, db, put, work,
                                                                     outcome):
    old_applied = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 4}])
    old_partial = put([{"room_type_code": "ACME-DBL", "date": day(1), "availability": 3},
                       {"room_type_code": "NOPE", "date": day(1), "availability": 3}])
    old_failed = put([{"room_type_code": "ACME-DBL", "date": day(2), "availability": 2}])
    recent = put([{"room_type_code": "ACME-DBL", "date": day(3), "availability": 1}])
    assert work() == 1  # one job applies the four: ari/apply.py groups waiting batches
    db.run(lambda c: c.execute("UPDATE ari_batches SET status = 'failed', applied_count = 0, "
                               "rejected_count = 0, rejected = '[]' WHERE id = %s",
                               (old_failed,)))
    queued = put([{"room_type_code": "ACME-DBL", "date": day(4), "availability": 1}])
    for batch_id in (old_applied, old_partial, old_failed, queued):
        age(db, batch_id, 40)
    before = {b: outcome(b) for b in (old_applied, old_partial, old_failed, recent, queued)}

    runner = app.test_cli_runner()
    with app.app_context():
        result = runner.invoke(args=["ari", "prune-items"])
    assert result.exit_code == 0, output_of(result)
    assert "pruned the items of 2 batch(es) applied more than 30 day(s) ago" in result.output

    for batch_id in (old_applied, old_partial):
        row = stored(db, batch_id)
        assert row["items"] == [] and row["items_pruned_at"] is not None
    for batch_id in (old_failed, recent, queued):
        row = stored(db, batch_id)
        assert len(row["items"]) == 1 and row["items_pruned_at"] is None
    assert {b: outcome(b) for b in before} == before  # what partners see is unchanged

    with app.app_context():
        again = runner.invoke(args=["ari", "prune-items", "--older-than-days", "1"])
    assert again.exit_code == 0 and "of 0 batch(es)" in again.output


def test_the_database_refuses_pruning_an_unfinished_batch(db, put):
    import psycopg
    import pytest

    queued = put([{"room_type_code": "ACME-DBL", "date": day(0), "availability": 4}])
    with pytest.raises(psycopg.errors.CheckViolation):
        db.run(lambda c: c.execute("UPDATE ari_batches SET items = '[]', "
                                   "items_pruned_at = now() WHERE id = %s", (queued,)))


def test_prune_rejects_a_retention_below_one_day(app):
    with app.app_context():
        result = app.test_cli_runner().invoke(args=["ari", "prune-items",
                                                    "--older-than-days", "0"])
    assert result.exit_code == 2 and "older-than-days" in output_of(result)
