"""`python -m bench --citus` (bench/stack.py): the bench database it measures is on every node
of the cluster and distributed, also after it was made again for an edited migration, and a
database that is not refuses the run instead of being measured as Citus."""

from __future__ import annotations

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo
from psycopg.rows import dict_row

from bench.stack import citus_problems, distribute_bench_database, is_distributed, start_stack
from tests.support.oncitus import TEST_SHARD_COUNT


@pytest.fixture
def bench_env(citus, services, monkeypatch):
    """The environment `python -m bench --citus` reads, aimed at the tests' cluster; a bench
    database of this run's own, dropped from every node afterwards."""
    workers = [w.url() for w in citus.cluster.workers]
    monkeypatch.setenv("DATABASE_URL", citus.cluster.url())
    monkeypatch.setenv("CITUS_WORKER_URLS", ",".join(workers))
    monkeypatch.setenv("REDIS_URL", services.redis_url)
    monkeypatch.setenv("SECRET_KEY", "bench-test-secret-" + "k" * 32)
    monkeypatch.setenv("CITUS_SHARD_COUNT", str(TEST_SHARD_COUNT))
    name = f"{citus.database}_bench"
    yield name, workers
    citus.cluster.drop_database(name)


def citus_on_every_node(citus, database: str) -> dict[str, bool]:
    found = {}
    for node in citus.cluster.nodes:
        with psycopg.connect(node.url(database)) as conn:
            found[node.name] = conn.execute(
                "SELECT count(*) = 1 FROM pg_extension WHERE extname = 'citus'").fetchone()[0]
    return found


def test_a_bench_database_made_again_for_an_edited_migration_is_distributed(citus, bench_env):
    name, workers = bench_env
    stack = start_stack(citus=True, database=name)
    distribute_bench_database(stack.database_url, workers)
    with psycopg.connect(stack.database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE made_before (id int)")
        conn.execute("UPDATE bench_migrations SET sha256 = 'edited' "
                     "WHERE version = (SELECT min(version) FROM bench_migrations)")

    stack = start_stack(citus=True, database=name)

    assert citus_on_every_node(citus, name) == {n.name: True for n in citus.cluster.nodes}
    with psycopg.connect(stack.database_url) as conn:
        assert conn.execute("SELECT to_regclass('made_before')").fetchone()[0] is None, \
            "the database was not made again"
        joined = {r[0] for r in conn.execute(
            "SELECT nodeport FROM pg_dist_node WHERE noderole = 'primary' AND groupid <> 0")}
    assert joined == {w.port for w in citus.cluster.workers}
    # Made again, empty and not distributed yet: the data set goes into plain tables first.
    assert not is_distributed(stack.database_url)
    distribute_bench_database(stack.database_url, workers)
    assert is_distributed(stack.database_url)
    with psycopg.connect(stack.database_url, autocommit=True, row_factory=dict_row) as conn:
        assert citus_problems(conn, workers) == []
        # One worker more than the database knows: named, not passed over.
        problems = citus_problems(conn, workers + ["postgresql://postgres@127.0.0.1:1/postgres"])
    assert "worker 127.0.0.1:1 is not an active node of this database" in problems
    assert "rate_plan_days has no shard on 127.0.0.1:1" in problems


def test_a_plain_database_on_the_coordinator_is_refused(citus, bench_env):
    name, workers = bench_env
    with psycopg.connect(citus.cluster.url(), autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    with pytest.raises(SystemExit) as refused:
        distribute_bench_database(make_conninfo(citus.cluster.url(), dbname=name), workers)
    assert "no citus extension in the database" in str(refused.value)
