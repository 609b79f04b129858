"""The bench's CPU by role (bench/cpu.py `backend_roles`): which backends, on every node of a
Citus cluster, serve a given client process. It reads a name Citus gives its own connections
(`citus_internal gpid=<node id x 10^10 + pid>`), not a documented interface: this test fails
when a Citus upgrade changes it, instead of the bench's reads quietly losing their workers'
CPU."""

from __future__ import annotations

import os
import subprocess
import sys

import psycopg

from bench.cpu import backend_roles


def activity(citus) -> list[list[tuple[int, int | None, str]]]:
    """Each node's backends in the test's database, as the bench's sampler reads them."""
    nodes = []
    for node in citus.cluster.nodes:
        with psycopg.connect(node.url(citus.database), autocommit=True) as conn:
            nodes.append(conn.execute(
                "SELECT pid, client_port, coalesce(application_name, '') FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()").fetchall())
    return nodes


def test_a_clients_backends_are_found_on_every_node(citus):
    # A session of this process whose multi-shard read leaves a cached connection to each
    # worker, and one of another process that holds its own.
    mine = psycopg.connect(citus.url, autocommit=True)
    other = subprocess.Popen(
        [sys.executable, "-c", "import psycopg, sys; c = psycopg.connect(sys.argv[1], "
         "autocommit=True); c.execute('SELECT count(*) FROM change_log').fetchone(); "
         "print('ready', flush=True); sys.stdin.read()", citus.url],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout.readline().strip() == "ready"
        mine.execute("SELECT count(*) FROM change_log").fetchone()
        my_backend = mine.execute("SELECT pg_backend_pid()").fetchone()[0]
        nodes = activity(citus)
        roles = backend_roles(nodes, {"mine": {os.getpid()}, "other": {other.pid}})
        on = {pid: i for i, node in enumerate(nodes) for pid, _, _ in node}
        # This process holds other sessions too (the tests' pools): all of them are its.
        assert my_backend in roles["mine"]
        assert {1, 2} <= {on[pid] for pid in roles["mine"]}, (roles, nodes)
        # The other process's one session, with its tasks' backends on each worker, and none
        # of this one's.
        assert {on[pid] for pid in roles["other"]} == {0, 1, 2}, (roles, nodes)
        assert not roles["mine"] & roles["other"]
    finally:
        mine.close()
        other.stdin.close()
        other.wait(10)
