"""The tests on a Citus cluster (PCS_TEST_ON_CITUS=1; .ci/run sets it for its last pass): the
cluster of devtools/citus_nodes.py in .local/citus-test on ports 9710-9712 (never the
`make citus` one on 9700-9702), started when it is not up already and stopped at the end by
the run that started it. PCS_TEST_CITUS_PORT moves it (its data then in
.local/citus-test-<port>), so that two runs side by side do not stop each other's cluster. Each run gets its own database on every node, migrated and
distributed with 4 shards per colocation group (what emptying the tables before each test does
runs on every shard: a TRUNCATE of them took about 2 s with Citus's default of 32)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import psycopg
from psycopg.rows import dict_row

from devtools.citus_nodes import (
    CITUS_LIBRARY,
    CitusCluster,
    build_script,
    citus_installed,
)
from devtools.stack import LOCAL
from connectivity.operator.citus import Placement, distribute
from connectivity.operator.migrations import upgrade

TEST_SHARD_COUNT = 4


def _base_port() -> int:
    """PCS_TEST_CITUS_PORT, or 9710; each pytest-xdist worker (gw0, gw1...) 100 ports further
    on, so that each has a cluster of its own: two runs on one cluster would race to start it,
    and the first to finish would stop it under the other."""
    port = int(os.environ.get("PCS_TEST_CITUS_PORT", "9710"))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return port + 100 * int(worker[2:]) if worker.startswith("gw") else port


TEST_BASE_PORT = _base_port()


def on_citus() -> bool:
    return os.environ.get("PCS_TEST_ON_CITUS", "") not in ("", "0")


def not_installed_reason() -> str | None:
    if citus_installed():
        return None
    return (f"Citus is not installed ({CITUS_LIBRARY} missing; as root: bash {build_script()}): "
            "the tests needing Citus were SKIPPED")


def cluster_for_tests() -> CitusCluster:
    folder = "citus-test" if TEST_BASE_PORT == 9710 else f"citus-test-{TEST_BASE_PORT}"
    return CitusCluster(LOCAL / folder, TEST_BASE_PORT, durable=False)


@dataclass
class CitusRun:
    cluster: CitusCluster
    database: str
    placements: list[Placement] = field(default_factory=list)
    started: list = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.cluster.url(self.database)

    def not_distributed(self) -> list[Placement]:
        """Planned tables the schema did not let `distribute` place (they stay local on the
        coordinator)."""
        return [p for p in self.placements if p.failed]

    def close(self) -> None:
        try:
            self.cluster.drop_database(self.database)
        finally:
            for node in reversed(self.started):
                node.stop()


def start(database: str) -> CitusRun:
    cluster = cluster_for_tests()
    before = [node for node in cluster.nodes if node.running()]
    cluster.up()
    run = CitusRun(cluster, database,
                   started=[n for n in cluster.nodes if n not in before])
    try:
        cluster.prepare_database(database)
        upgrade(run.url)
        with psycopg.connect(run.url, autocommit=True, row_factory=dict_row) as conn:
            run.placements = distribute(conn, TEST_SHARD_COUNT)
    except BaseException:
        run.close()
        raise
    return run
