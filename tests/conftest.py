"""Test services: real PostgreSQL and Redis. With DATABASE_URL / REDIS_URL set those servers are
used (a fresh database and a key prefix of this run's own); unset, embedded ones are started
under .local/. Each test starts from empty tables and no Redis keys of this run.

With PCS_TEST_THROUGH_PGBOUNCER=1 (.ci/run sets it for a second pass over the API tests) the
tests reach that database through a PgBouncer in transaction pooling mode, migrations included;
where `pgbouncer` is not installed the run is skipped, saying so.

With PCS_TEST_ON_CITUS=1 (.ci/run's last pass) the database is on a Citus cluster
(tests/support/oncitus.py): created on every node, migrated and distributed with 4 shards; where Citus
is not installed the run is skipped, saying so."""

from __future__ import annotations

import dataclasses
import fcntl
import os
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
import redis
from psycopg import sql
from psycopg.conninfo import make_conninfo

from rq import Queue

from app import create_app
from connectivity.ari.queue import queue_name
from connectivity.auth.credentials import SigningVault
from devtools.stack import LOCAL, EmbeddedPostgres, EmbeddedRedis
from devtools.topology import PgBouncer, pgbouncer_program
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.operator.keys import issue_key
from connectivity.operator.migrations import upgrade
from connectivity.settings import Settings
from tests.support import oncitus
from tests.support.emptying import empty
from connectivity.web.services import services_of

DEMO_CATALOG = Path(__file__).resolve().parent.parent / "docs" / "demo-catalog.json"
SECRET_KEY = "test-secret-key-" + "k" * 32


@dataclass(frozen=True)
class Services:
    database_url: str
    redis_url: str
    redis_prefix: str
    # The database itself, when database_url goes through PgBouncer (else the same URL).
    direct_url: str = ""
    # The cluster and what `citus distribute` placed, under PCS_TEST_ON_CITUS.
    citus: oncitus.CitusRun | None = None


def through_pgbouncer() -> bool:
    return os.environ.get("PCS_TEST_THROUGH_PGBOUNCER", "") not in ("", "0")


@pytest.fixture(scope="session")
def services():
    if oncitus.on_citus():
        yield from _services_on_citus()
        return
    if through_pgbouncer() and pgbouncer_program() is None:
        pytest.skip("PCS_TEST_THROUGH_PGBOUNCER is set but pgbouncer is not installed "
                    "(Debian: apt-get install pgbouncer): the tests needing a database were "
                    "skipped")
    started = []
    server_url = os.environ.get("DATABASE_URL")
    if not server_url:
        pg = _embedded_postgres()
        started.append(pg)
        server_url = pg.url
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        rd = EmbeddedRedis(LOCAL / "test-redis", persist=False)
        started.append(rd)
        redis_url = rd.url

    test_db = f"connectivity_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(test_db)))
    database_url = direct_url = make_conninfo(server_url, dbname=test_db)
    if through_pgbouncer():
        bouncer = PgBouncer(Path(tempfile.mkdtemp(prefix="pcs-test-pgbouncer-")), server_url)
        started.append(bouncer)
        database_url = bouncer.url(test_db)
        upgrade(database_url, direct_url=direct_url)
    else:
        upgrade(database_url)
    try:
        yield Services(database_url, redis_url, f"pcs-test-{uuid.uuid4().hex[:8]}:", direct_url)
    finally:
        for service in reversed(started):
            if isinstance(service, PgBouncer):
                service.close()
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
                          .format(sql.Identifier(test_db)))
        for service in reversed(started):
            if not isinstance(service, PgBouncer):
                service.stop()


def _embedded_postgres() -> EmbeddedPostgres:
    """The embedded server all of this run's test processes share (pytest-xdist's workers
    among them): the first to come makes its data directory, the others wait for it, since
    two initdb on one directory fail."""
    LOCAL.mkdir(parents=True, exist_ok=True)
    with open(LOCAL / "test-pgdata.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return EmbeddedPostgres(LOCAL / "test-pgdata", "postgres")


def _services_on_citus():
    reason = oncitus.not_installed_reason()
    if reason:
        pytest.skip(f"PCS_TEST_ON_CITUS is set but {reason}")
    redis_url = os.environ.get("REDIS_URL")
    started = []
    if not redis_url:
        rd = EmbeddedRedis(LOCAL / "test-redis", persist=False)
        started.append(rd)
        redis_url = rd.url
    run = oncitus.start(f"connectivity_test_{os.getpid()}_{uuid.uuid4().hex[:6]}")
    refused = run.not_distributed()
    if refused:
        # On an undistributed database these tests would prove nothing about Citus.
        run.close()
        pytest.skip("PCS_TEST_ON_CITUS is set but Citus refuses to distribute this schema, so "
                    "the tests needing a database were SKIPPED: "
                    + "; ".join(f"{p.table}: {p.detail}" for p in refused))
    try:
        yield Services(run.url, redis_url, f"pcs-test-{uuid.uuid4().hex[:8]}:", run.url, run)
    finally:
        run.close()
        for service in started:
            service.stop()


@pytest.fixture(scope="session")
def settings(services) -> Settings:
    return Settings(database_url=services.database_url, redis_url=services.redis_url,
                    secret_key=SECRET_KEY, redis_prefix=services.redis_prefix,
                    search_model_loading="inline", search_model_refresh_seconds=0,
                    # The tests' webhook receivers listen on loopback, as a local demo's do.
                    webhook_allow_loopback=True)


@pytest.fixture(scope="session")
def app(settings):
    application = create_app(settings)
    application.config["TESTING"] = True
    yield application
    services_of(application).reads.close()
    services_of(application).db.close()
    services_of(application).guards.close()


@pytest.fixture(autouse=True)
def clean_state(request):
    """Empty tables and no Redis keys of this run before each test that uses them; pure tests
    start no server at all."""
    if "services" not in request.fixturenames:
        yield
        return
    services = request.getfixturevalue("services")
    with psycopg.connect(services.database_url, autocommit=True) as conn:
        empty(conn)
    client = redis.Redis.from_url(services.redis_url)
    keys = list(client.scan_iter(match=f"{services.redis_prefix}*", count=1000))
    if keys:
        client.delete(*keys)
    # RQ keeps its keys under rq:, named after our (prefixed) queue: jobs an earlier test
    # enqueued must not be worked off by this one's worker.
    Queue(queue_name(services.redis_prefix), connection=client).empty()
    client.close()
    if "app" in request.fixturenames and services_of(request.getfixturevalue("app")).search_model:
        # The tables were emptied under the app: its search model must not answer from before.
        services_of(request.getfixturevalue("app")).search_model.forget()
    yield


@pytest.fixture
def db(app):
    return services_of(app).db


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def catalog(db):
    """The demo catalogue: partner acme with two sandbox properties."""
    db.run(load_catalog, parse_catalog(DEMO_CATALOG.read_text()))
    return parse_catalog(DEMO_CATALOG.read_text())


@pytest.fixture
def issue(db, settings):
    """issue(preset="pull", partner="acme", environment="sandbox", **options) -> IssuedKey"""
    vault = SigningVault(settings.secret_key)

    def _issue(preset="pull", partner="acme", environment="sandbox", name="test key", **options):
        return db.run(issue_key, vault, partner_code=partner, name=name, environment=environment,
                      preset=preset, **options)
    return _issue




@pytest.fixture
def make_app(settings):
    """make_app(**settings_changes) -> a fresh app with pools of its own; closed at teardown."""
    made = []

    def _make(**changes):
        application = create_app(dataclasses.replace(settings, **changes))
        made.append(application)
        return application

    yield _make
    for application in made:
        services_of(application).db.close()
        services_of(application).guards.close()
