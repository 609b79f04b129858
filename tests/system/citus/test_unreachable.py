"""connectivity/store/faults.py: which database errors are a 503 (a node unreachable) and which a
500 (a defect). Errors raised by a real server with Citus's own messages, on plain PostgreSQL as
on the cluster (a stopped worker itself is tests/system/citus/test_faults.py)."""

from __future__ import annotations

import psycopg
import pytest

from connectivity.store.faults import unreachable


def raised(db, sql: str) -> psycopg.Error:
    with pytest.raises(psycopg.Error) as caught:
        db.run(lambda conn: conn.execute(sql))
    return caught.value


@pytest.mark.parametrize("message", [
    # XX000 from Citus when a worker is lost inside a commit, or during a COPY
    "failure on connection marked as essential: 127.0.0.1:9711",
    "could not connect to any active placements",
    # XX000 when the worker went away while it committed (seen in test_faults.py)
    "could not commit transaction for shard 102019 on at least one active node",
    ("connection to the remote node postgres@127.0.0.1:9712 failed with the following error: "
     "Connection refused"),
])
def test_citus_messages_of_a_lost_worker_are_unreachable(db, message):
    error = raised(db, f"DO $$ BEGIN RAISE EXCEPTION '{message}' USING ERRCODE = 'XX000'; END $$")
    assert isinstance(error, psycopg.errors.InternalError_)
    assert unreachable(error)


def test_a_lost_connection_class_is_unreachable(db):
    assert unreachable(raised(db, "DO $$ BEGIN RAISE EXCEPTION 'gone' USING ERRCODE = '08006'; "
                                  "END $$"))


@pytest.mark.parametrize("sql", ["SELECT 1 / 0", "SELECT no_such_column FROM partners",
                                 ("DO $$ BEGIN RAISE EXCEPTION 'internal' USING ERRCODE = "
                                  "'XX000'; END $$")])
def test_other_errors_are_defects(db, sql):
    assert not unreachable(raised(db, sql))


def answer(app, error: Exception):
    """What the app's error handlers make of `error` raised by a view."""
    with app.test_request_context("/api/connectivity/v1/availability/search"):
        try:
            raise error
        except Exception as exc:  # noqa: BLE001 - handed to the app's handlers, as Flask does
            return app.make_response(app.handle_user_exception(exc))


def test_the_api_answers_503_with_retry_after_for_them_and_500_for_others(app, db):
    lost = raised(db, "DO $$ BEGIN RAISE EXCEPTION 'failure on connection marked as essential: "
                      "127.0.0.1:9711' USING ERRCODE = 'XX000'; END $$")
    other = raised(db, "DO $$ BEGIN RAISE EXCEPTION 'internal' USING ERRCODE = 'XX000'; END $$")
    unavailable = answer(app, lost)
    assert unavailable.status_code == 503 and unavailable.headers["Retry-After"]
    assert unavailable.get_json()["error"]["code"] == "service_unavailable"
    defect = answer(app, other)
    assert defect.status_code == 500
    assert defect.get_json()["error"]["code"] == "internal_error"
