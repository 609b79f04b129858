"""A PgBouncer in transaction pooling mode in front of the test database's server. Where the
`pgbouncer` program is not installed these tests are skipped, and say why (.ci/run installs
it, so CI always runs them)."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from pathlib import Path

import pytest

from app import create_app
from devtools.topology import PgBouncer, pgbouncer_program
from tests.conftest import through_pgbouncer
from connectivity.web.services import services_of

API = "/api/connectivity/v1"


@pytest.fixture(scope="module")
def bouncer(services):
    if pgbouncer_program() is None:
        pytest.skip("pgbouncer is not installed (Debian: apt-get install pgbouncer): the "
                    "PgBouncer tests were skipped")
    if through_pgbouncer():
        pytest.skip("already run through PgBouncer: these tests start their own")
    # Not under pytest's tmp_path: as root PgBouncer runs as another user, who must reach it.
    root = Path(tempfile.mkdtemp(prefix="pcs-test-pgbouncer-"))
    server = PgBouncer(root, services.direct_url,
                       # two server connections for more clients: consecutive transactions of
                       # one client land on either, so what a session leaves behind is seen
                       pool_size=2)
    yield server
    server.close()
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pooled_url(bouncer, services):
    from psycopg.conninfo import conninfo_to_dict
    return bouncer.url(conninfo_to_dict(services.direct_url)["dbname"])


@pytest.fixture
def pooled_app(settings, pooled_url):
    """An app whose every database connection goes through the PgBouncer."""
    application = create_app(dataclasses.replace(settings, database_url=pooled_url))
    yield application
    services_of(application).db.close()
    services_of(application).guards.close()
