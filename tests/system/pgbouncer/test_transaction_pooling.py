"""The service behind PgBouncer in transaction pooling mode (docs/operations.md, "PgBouncer").
The API tests as a whole run through one as well (PCS_TEST_THROUGH_PGBOUNCER, .ci/run); these
are what that pass cannot show: session settings per transaction, statements run many times
over few server connections, migrations with and without a direct connection, and PgBouncer
lost and back."""

from __future__ import annotations

import datetime as dt
import threading
import time
import uuid

import psycopg
import pytest
from psycopg import errors as pg_errors
from psycopg import sql
from psycopg.conninfo import make_conninfo

from connectivity.store.database import Database, behind_pooler
from connectivity.operator.migrations import MigrationError, upgrade
from connectivity.store.queries import MIGRATIONS_DIR

from tests.system.pgbouncer.conftest import API

# Not a figure under test: how long a test waits for the service to come back before failing.
GIVE_UP_SECONDS = 60


def test_the_pooler_is_recognised_and_a_direct_server_is_not(pooled_url, services):
    assert behind_pooler(pooled_url)
    assert not behind_pooler(services.direct_url)


def test_every_transaction_runs_with_the_session_settings(pooled_url):
    db = Database(pooled_url, max_size=2, statement_timeout_seconds=0.5,
                  idle_in_transaction_timeout_seconds=7)
    try:
        for _ in range(6):  # over both server connections
            row = db.run(lambda conn: conn.execute(
                "SELECT current_setting('jit') AS jit, "
                "current_setting('statement_timeout') AS statement, "
                "current_setting('idle_in_transaction_session_timeout') AS idle").fetchone())
            assert row == {"jit": "off", "statement": "500ms", "idle": "7s"}
        with pytest.raises(pg_errors.QueryCanceled):
            db.run(lambda conn: conn.execute("SELECT pg_sleep(5)"))
    finally:
        db.close()


def test_a_statement_run_many_times_by_many_clients_never_meets_a_lost_prepared_one(
        pooled_url):
    """psycopg prepares a statement on the server from its 5th run on a connection; through
    transaction pooling the next run may reach a server connection that never saw it."""
    db = Database(pooled_url, max_size=6)
    failures: list[BaseException] = []

    def client(n: int) -> None:
        try:
            for i in range(40):
                got = db.run(lambda conn: conn.execute(
                    "SELECT %s::int + %s::int AS sum", (n, i)).fetchone()["sum"])
                assert got == n + i
        except BaseException as exc:  # reported below, with its type
            failures.append(exc)
    threads = [threading.Thread(target=client, args=(n,)) for n in range(6)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        db.close()
    assert not failures, [repr(f) for f in failures[:3]]


@pytest.fixture
def scratch(services, bouncer):
    """A fresh empty database: (its URL through PgBouncer, its direct URL)."""
    name = f"pcs_pooled_migrations_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(services.direct_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield bouncer.url(name), make_conninfo(services.direct_url, dbname=name)
    finally:
        with psycopg.connect(services.direct_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
                          .format(sql.Identifier(name)))


def ledger(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        return [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY 1")]


def test_migrations_run_through_the_pooler_with_a_direct_url_for_those_outside_a_transaction(
        scratch):
    pooled, direct = scratch
    every = sorted(p.stem for p in MIGRATIONS_DIR.glob("*.sql"))
    # Two upgrades at once: the advisory lock (held for each transaction, which PgBouncer
    # keeps on one server connection) lets each migration apply exactly once.
    results, failures = [], []

    def run():
        try:
            results.append(upgrade(pooled, direct_url=direct))
        except BaseException as exc:
            failures.append(exc)
    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, [repr(f) for f in failures]
    assert sorted(results[0] + results[1]) == every
    assert ledger(direct) == every
    assert upgrade(pooled, direct_url=direct) == []
    with psycopg.connect(direct) as conn:
        assert conn.execute("SELECT count(*) FROM pg_index WHERE NOT indisvalid").fetchone()[0] == 0


def test_without_a_direct_url_the_upgrade_stops_before_a_no_transaction_migration(scratch):
    pooled, direct = scratch
    with pytest.raises(MigrationError, match="DATABASE_DIRECT_URL"):
        upgrade(pooled)
    # Every migration before it applied whole, the rest not at all; with the direct URL the
    # upgrade then finishes.
    applied = ledger(direct)
    every = sorted(p.stem for p in MIGRATIONS_DIR.glob("*.sql"))
    stopped_at = every[len(applied)]
    assert applied == every[:len(applied)]
    assert "no-transaction" in (MIGRATIONS_DIR / f"{stopped_at}.sql").read_text()
    assert upgrade(pooled, direct_url=direct) == every[len(applied):]


def test_losing_pgbouncer_is_a_503_with_retry_after_and_service_returns(
        pooled_app, bouncer, catalog, issue):
    headers = {"Authorization": f"Bearer {issue('pull').token}"}
    check_in = dt.date.today() + dt.timedelta(days=5)
    body = {"hotel_codes": ["ACME-LIS"], "check_in": check_in.isoformat(),
            "check_out": (check_in + dt.timedelta(days=2)).isoformat(), "rooms": 1,
            "occupancy": [{"adults": 2}]}
    client = pooled_app.test_client()
    search = f"{API}/availability/search"
    assert client.post(search, json=body, headers=headers).status_code == 200
    bouncer.close()
    try:
        answer = client.post(search, json=body, headers=headers)
        assert answer.status_code == 503, answer.json
        assert answer.json["error"]["code"] == "service_unavailable"
        assert answer.headers["Retry-After"].isdigit()
    finally:
        bouncer.start()
    deadline = time.monotonic() + GIVE_UP_SECONDS
    while (status := client.post(search, json=body, headers=headers).status_code) != 200:
        assert status == 503 and time.monotonic() < deadline, status
        time.sleep(0.2)
