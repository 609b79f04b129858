"""A Citus cluster on one machine: a coordinator and two workers from the system PostgreSQL 15
(Debian's, /usr/lib/postgresql/15) with the Citus extension, for `make citus`
(devtools/citus.py), the tests on Citus (tests/conftest.py) and the benchmark.

Citus is in neither Debian's nor PyPI's packages: `../shared/citus/build.sh` (beside a checkout
at /work/main; CITUS_BUILD_SCRIPT overrides the path) builds and installs it, as root.

The nodes keep their data under their state folder between runs: starting a cluster that is
already up, or whose data is there, finds it and reuses it. Cluster metadata is per database
and CREATE DATABASE is not propagated, so `prepare_database` makes a database on every node
and joins the workers to it (the order the facts in ../shared/citus/README.md demand)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from devtools.stack import ROOT
from devtools.topology import run_quietly, wait_for_port

PG_BIN = Path("/usr/lib/postgresql/15/bin")
CITUS_LIBRARY = Path("/usr/lib/postgresql/15/lib/citus.so")
# The build script lives beside the repository (../shared/citus/build.sh from a checkout's
# root), not in it: it carries the Citus source tarball, which is AGPL and 6 MB.
DEFAULT_BUILD_SCRIPT = ROOT.parent / "shared" / "citus" / "build.sh"
WORKERS = 2
HOST = "127.0.0.1"
SETTINGS_FILE = "citus-node.conf"  # in each data folder, included by its postgresql.conf


def build_script() -> Path:
    return Path(os.environ.get("CITUS_BUILD_SCRIPT") or DEFAULT_BUILD_SCRIPT)


def citus_installed() -> bool:
    return CITUS_LIBRARY.exists() and (PG_BIN / "postgres").exists()


def install_citus() -> str:
    """Build and install the extension when it is missing; what was found or done."""
    if citus_installed():
        return f"Citus found: {CITUS_LIBRARY}"
    script = build_script()
    if not script.exists():
        raise RuntimeError(f"Citus is not installed ({CITUS_LIBRARY} missing) and its build "
                           f"script {script} does not exist: set CITUS_BUILD_SCRIPT")
    if os.geteuid() != 0:
        raise RuntimeError(f"Citus is not installed; installing it needs root: "
                           f"sudo bash {script}")
    subprocess.run(["bash", str(script)], check=True)
    return f"Citus built and installed with {script}"


def node_settings(port: int, *, durable: bool) -> str:
    """postgresql.conf lines of a node (docs/operations.md 6.4 says why each is there)."""
    return "\n".join([
        "",
        "shared_preload_libraries = 'citus'",
        # two-phase commit of a transaction that writes on more than one node (a booking whose
        # claim lives on another worker than its row)
        "max_prepared_transactions = 100",
        "wal_level = logical",  # shard moves (citus_rebalance_start) use logical replication
        # the day tables' change-log triggers run on the shards: Citus refuses triggers on
        # distributed tables unless told they are safe (they only write the same shard's
        # colocated change_log rows)
        "citus.enable_unsafe_triggers = on",
        # the service turns JIT off on its own connections (connectivity/store/database.py), but the
        # coordinator's connections to the workers run with the workers' settings: with JIT on,
        # each shard task of a search compiles its statement, at many times the search's cost
        "jit = off",
        f"listen_addresses = '{HOST}'",
        f"port = {port}",
        "unix_socket_directories = ''",
        "max_connections = 200",
        # the database in each line: with citus.log_remote_commands on, what one database's
        # statements sent to the workers can be told apart (tests/system/citus)
        "log_line_prefix = '%m [%p] %q%d '",
        *([] if durable else ["fsync = off", "synchronous_commit = off",
                              "full_page_writes = off"]),
        "",
    ])


@dataclass
class Node:
    name: str
    pgdata: Path
    port: int
    user: str | None
    durable: bool = True  # False: fsync off, for tests

    @property
    def log(self) -> Path:
        return self.pgdata.parent / f"{self.name}.log"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@{HOST}:{self.port}/{database}"

    def initialised(self) -> bool:
        return (self.pgdata / "PG_VERSION").exists()

    def running(self) -> bool:
        """Its postmaster is alive (pid file) and answers on its port."""
        try:
            pid = int((self.pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
            os.kill(pid, 0)
        except (OSError, ValueError):
            return False
        return _answers(self.port)

    def init(self) -> None:
        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        if self.user:
            shutil.chown(self.pgdata.parent, self.user)
        run_quietly([PG_BIN / "initdb", "-D", self.pgdata, "-U", "postgres", "--auth=trust",
              "--no-sync", "-E", "UTF8"], self.user)
        with open(self.pgdata / "postgresql.conf", "a") as conf:
            conf.write(f"\ninclude '{SETTINGS_FILE}'\n")

    def start(self) -> None:
        if _answers(self.port):
            raise RuntimeError(f"port {self.port} is taken by another server: {self.name} "
                               f"({self.pgdata}) cannot start there")
        # Written at each start, not once at initdb: data kept from an older checkout starts
        # with this checkout's settings.
        settings = self.pgdata / SETTINGS_FILE
        settings.write_text(node_settings(self.port, durable=self.durable))
        if self.user:
            shutil.chown(settings, self.user)
        conf = self.pgdata / "postgresql.conf"
        include = f"include '{SETTINGS_FILE}'"
        if include not in conf.read_text():  # data whose postgresql.conf lacks the include
            with open(conf, "a") as f:
                f.write(f"\n{include}\n")
        run_quietly([PG_BIN / "pg_ctl", "-D", self.pgdata, "-l", self.log, "-w", "-t", "60", "start"],
             self.user)
        wait_for_port(self.port, f"Citus {self.name}")

    def stop(self, mode: str = "fast") -> None:
        if self.running():
            run_quietly([PG_BIN / "pg_ctl", "-D", self.pgdata, "-m", mode, "-w", "-t", "60", "stop"],
                 self.user)


def _answers(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=0.5):
            return True
    except OSError:
        return False


def _service_user() -> str | None:
    # PostgreSQL refuses to run as root; the system binaries' own user owns the data.
    return "postgres" if os.geteuid() == 0 else None


class CitusCluster:
    """Coordinator on `base_port`, workers on the next ports, data under `root`."""

    def __init__(self, root: Path, base_port: int, *, durable: bool = True):
        user = _service_user()
        self.root, self.durable = root, durable
        self.coordinator = Node("coordinator", root / "coordinator", base_port, user, durable)
        self.workers = [Node(f"worker-{n}", root / f"worker-{n}", base_port + n, user, durable)
                        for n in range(1, WORKERS + 1)]

    @property
    def nodes(self) -> list[Node]:
        return [self.coordinator, *self.workers]

    def url(self, database: str = "postgres") -> str:
        return self.coordinator.url(database)

    def up(self) -> list[str]:
        """Start what is not running (initialising what has no data yet); what it found."""
        if not citus_installed():
            raise RuntimeError(f"Citus is not installed ({CITUS_LIBRARY} missing): "
                               f"bash {build_script()} (root)")
        found = []
        for node in self.nodes:
            if node.running():
                found.append(f"{node.name} already running on port {node.port}")
                continue
            fresh = not node.initialised()
            if fresh:
                node.init()
            node.start()
            found.append(f"{node.name} {'initialised and started' if fresh else 'started'} "
                         f"on port {node.port} ({node.pgdata})")
        return found

    def running(self) -> bool:
        return all(node.running() for node in self.nodes)

    def stop(self) -> None:
        for node in reversed(self.nodes):
            node.stop()

    def prepare_database(self, database: str) -> list[str]:
        """The database on every node with the extension, the workers joined to it; each step
        only when not done yet. What it did."""
        return prepare_database(self.coordinator.url(), [w.url() for w in self.workers],
                                database)

    def drop_database(self, database: str) -> None:
        for node in reversed(self.nodes):
            with psycopg.connect(node.url(), autocommit=True) as admin:
                admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
                              .format(sql.Identifier(database)))

    def wait_for_worker(self, worker: Node, deadline_seconds: float = 30) -> None:
        deadline = time.monotonic() + deadline_seconds
        while not worker.running():
            if time.monotonic() > deadline:
                raise RuntimeError(f"{worker.name} did not come back")
            time.sleep(0.1)


def prepare_database(coordinator_url: str, worker_urls: list[str], database: str) -> list[str]:
    """`database` on the coordinator and every worker (given by URLs to any of their databases)
    with the extension, the workers joined to it; each step only when not done yet. What it
    did. Also for a cluster this module did not start (the bench's --citus)."""
    done = []
    for name, url in [("coordinator", coordinator_url)] + [
            (f"worker {_address(u)}", u) for u in worker_urls]:
        with psycopg.connect(url, autocommit=True) as admin:
            if admin.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                             (database,)).fetchone() is None:
                admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database)))
                done.append(f"database {database} created on the {name}")
        with psycopg.connect(make_conninfo(url, dbname=database), autocommit=True) as conn:
            # On the workers before they are added: citus_add_node calls its functions there.
            conn.execute("CREATE EXTENSION IF NOT EXISTS citus")
    with psycopg.connect(make_conninfo(coordinator_url, dbname=database),
                         autocommit=True) as conn:
        host, port = host_port(coordinator_url)
        conn.execute("SELECT citus_set_coordinator_host(%s, %s)", (host, port))
        joined = {(row[0], row[1]) for row in conn.execute(
            "SELECT nodename, nodeport FROM pg_dist_node WHERE noderole = 'primary'")}
        for url in worker_urls:
            if host_port(url) not in joined:
                conn.execute("SELECT citus_add_node(%s, %s)", host_port(url))
                done.append(f"worker {_address(url)} added to {database}")
    return done


def host_port(url: str) -> tuple[str, int]:
    """(host, port) of a node URL, as pg_dist_node names the node."""
    parts = conninfo_to_dict(url)
    return parts.get("host") or HOST, int(parts.get("port") or 5432)


def _address(url: str) -> str:
    host, port = host_port(url)
    return f"{host}:{port}"
