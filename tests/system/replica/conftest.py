"""A primary and a streaming replica of their own (devtools/topology.py: the embedded
PostgreSQL's initdb, pg_basebackup and pg_ctl), the schema migrated on the primary before the
base backup, and apps whose reads go to the replica."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from app import create_app
from connectivity.auth.credentials import SigningVault
from devtools.topology import LocalPostgres
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.operator.keys import issue_key
from connectivity.operator.migrations import upgrade
from tests.conftest import DEMO_CATALOG
from tests.support.emptying import empty
from connectivity.web.services import services_of

DATABASE = "connectivity"


@dataclasses.dataclass
class Topology:
    primary: LocalPostgres
    replica: LocalPostgres

    @property
    def primary_url(self) -> str:
        return self.primary.url(DATABASE)

    @property
    def replica_url(self) -> str:
        return self.replica.url(DATABASE)

    def replica_caught_up(self) -> None:
        self.replica.wait_until_replayed(self.primary, DATABASE)

    def on_replica(self, statement: str):
        with psycopg.connect(self.replica_url, autocommit=True) as conn:
            return conn.execute(statement).fetchall()


@pytest.fixture(scope="module")
def topology():
    # Not under pytest's tmp_path: as root the servers run as another user, who must reach it.
    root = Path(tempfile.mkdtemp(prefix="pcs-test-replica-"))
    primary = replica = None
    try:
        primary = LocalPostgres.primary(root)
        with psycopg.connect(primary.url(), autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE)))
        upgrade(primary.url(DATABASE))
        replica = LocalPostgres.replica_of(primary)
        yield Topology(primary, replica)
    finally:
        for server in (replica, primary):
            if server is not None:
                server.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def cluster(topology):
    """The topology, its tables emptied and the replica caught up with that, replay running."""
    if not topology.replica.running:
        topology.replica.start()
    with psycopg.connect(topology.replica_url, autocommit=True) as conn:
        if conn.execute("SELECT pg_is_wal_replay_paused()").fetchone()[0]:
            conn.execute("SELECT pg_wal_replay_resume()")
    with psycopg.connect(topology.primary_url, autocommit=True) as conn:
        empty(conn)
    topology.replica_caught_up()
    return topology


@pytest.fixture
def make_replica_app(settings, cluster):
    """make_replica_app(max_lag_seconds, read_model) -> an app on the cluster: decisions on the
    primary, reads on the replica while it lags no more than max_lag_seconds and holds every
    acknowledged write."""
    made = []

    def make(max_lag_seconds: float = 1.0, read_model: bool = False):
        # Without the search model by default: search then reads through the read target, the
        # routing under test (the model catches up from the primary whatever the target).
        application = create_app(dataclasses.replace(
            settings, database_url=cluster.primary_url, database_read_url=cluster.replica_url,
            read_max_lag_seconds=max_lag_seconds, search_read_model=read_model))
        made.append(application)
        return application
    yield make
    for application in made:
        for name in ("reads", "db", "guards"):
            getattr(services_of(application), name).close()


def seed(application) -> dict:
    """The demo catalogue and a pull key, written on the primary: the key's headers."""
    db = services_of(application).db
    db.run(load_catalog, parse_catalog(DEMO_CATALOG.read_text()))
    settings = services_of(application).settings
    issued = db.run(issue_key, SigningVault(settings.secret_key), partner_code="acme",
                    name="replica test", environment="sandbox", preset="pull",
                    rate_limit=100000)
    return {"Authorization": f"Bearer {issued.token}"}
