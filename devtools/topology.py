"""Servers of a production-shaped topology on one machine, from binaries already at hand: a
PostgreSQL primary and its streaming replica from the embedded PostgreSQL's own `initdb`,
`pg_basebackup` and `pg_ctl` (pgserver ships them), and a PgBouncer in transaction pooling
mode when the `pgbouncer` program is installed (Debian's package; not on PyPI).

For the tests and `make cluster` (devtools/cluster.py) only; production runs these as
managed services and gives the service their URLs."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

import psycopg

PG_BIN = Path(__import__("pgserver").__file__).resolve().parent / "pginstall" / "bin"
# PostgreSQL and PgBouncer both refuse to run as root: as root they run as the first of these
# users that exists (pgserver itself creates `pgserver`).
SERVICE_USERS = ("pgserver", "postgres", "nobody")


def announce(title: str, listening: list[tuple[str, str]], env_file: str,
             after: str = "") -> None:
    """What a local topology (`make cluster`, `make citus`) serves, where, and its settings file."""
    width = max(len(what) for what, _ in listening)
    print(f"\n{title}:", flush=True)
    for what, where in listening:
        print(f"  {what.ljust(width)}  {where}")
    print(f"\nSettings: {env_file}  (`set -a; . {env_file}; set +a` for the flask CLI)"
          + (f"\n{after}" if after else ""), flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def service_user() -> str | None:
    """Who the servers run as: None (this user) unless this is root."""
    if os.geteuid() != 0:
        return None
    for name in SERVICE_USERS:
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError(f"running as root and none of the users {SERVICE_USERS} exists")


def give_to(path: Path, user: str | None) -> None:
    """Make `path` the server user's (root runs the servers as that user)."""
    if user is not None:
        shutil.chown(path, user)


def run_quietly(args: list, user: str | None, timeout: float = 120) -> None:
    # HOME is the service user's: with root's, a server's own client connections (Citus's
    # nodes reaching each other) look for certificates under /root/.postgresql and fail on
    # its permissions.
    env = {**os.environ, "HOME": pwd.getpwnam(user).pw_dir} if user else None
    result = subprocess.run([str(a) for a in args], user=user, env=env, capture_output=True,
                            text=True, timeout=timeout, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{Path(str(args[0])).name} failed: {result.stderr.strip()[-2000:]}")


def wait_for_port(port: int, what: str, deadline_seconds: float = 60, process=None) -> None:
    deadline = time.monotonic() + deadline_seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline or (process is not None
                                               and process.poll() is not None):
                raise RuntimeError(f"{what} did not start listening on port {port}") from None
            time.sleep(0.05)


class LocalPostgres:
    """One PostgreSQL server of our own, its data in `pgdata`, listening on 127.0.0.1:`port`
    only (no Unix socket). Built by `primary` or `replica_of`."""

    def __init__(self, pgdata: Path, port: int, user: str | None):
        self.pgdata, self.port, self.user = pgdata, port, user
        self.log = pgdata.parent / f"{pgdata.name}.log"
        self.running = False

    @classmethod
    def primary(cls, root: Path, name: str = "primary") -> "LocalPostgres":
        user = service_user()
        root.mkdir(parents=True, exist_ok=True)
        give_to(root, user)
        server = cls(root / name, free_port(), user)
        run_quietly([PG_BIN / "initdb", "-D", server.pgdata, "-U", "postgres", "--auth=trust",
              "--no-sync", "-E", "UTF8"], user)
        with open(server.pgdata / "postgresql.conf", "a") as conf:
            # wal_level=replica and 10 WAL senders are PostgreSQL 16's defaults; a replica
            # reaches the primary over TCP with the `trust` lines initdb writes for 127.0.0.1.
            conf.write(f"\nlisten_addresses = '127.0.0.1'\nport = {server.port}\n"
                       "unix_socket_directories = ''\nfsync = off\nmax_connections = 200\n"
                       "wal_keep_size = '256MB'\n")
        server.start()
        return server

    @classmethod
    def replica_of(cls, primary: "LocalPostgres", name: str = "replica") -> "LocalPostgres":
        """A streaming replica: a base backup of `primary` that starts in standby mode
        (`pg_basebackup -R` writes standby.signal and primary_conninfo)."""
        server = cls(primary.pgdata.parent / name, free_port(), primary.user)
        run_quietly([PG_BIN / "pg_basebackup", "-h", "127.0.0.1", "-p", primary.port, "-U", "postgres",
              "-D", server.pgdata, "-R", "-X", "stream", "--no-sync", "--checkpoint=fast",
              f"--label={name}"], primary.user)
        with open(server.pgdata / "postgresql.auto.conf", "a") as conf:
            conf.write(f"\nport = {server.port}\n"
                       # the application_name the primary's pg_stat_replication shows
                       f"primary_conninfo = 'host=127.0.0.1 port={primary.port} user=postgres "
                       f"application_name={name}'\n")
        server.start()
        return server

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        run_quietly([PG_BIN / "pg_ctl", "-D", self.pgdata, "-l", self.log, "-w", "-t", "60", "start"],
             self.user)
        self.running = True
        self._postmaster = self._postmaster_pid()

    def _postmaster_pid(self) -> str | None:
        try:
            return (self.pgdata / "postmaster.pid").read_text().split("\n", 1)[0]
        except OSError:
            return None

    def stop(self, mode: str = "fast") -> None:
        run_quietly([PG_BIN / "pg_ctl", "-D", self.pgdata, "-m", mode, "-w", "-t", "60", "stop"],
             self.user)
        self.running = False

    def close(self) -> None:
        # Only the server this object started: another one may run on the same data folder
        # since (a `make cluster` started again there).
        if self.running and self._postmaster_pid() == self._postmaster:
            try:
                self.stop("immediate")
            except RuntimeError:
                pass

    def wait_until_replayed(self, primary: "LocalPostgres", database: str = "postgres",
                            deadline_seconds: float = 60) -> None:
        """Until this replica has replayed everything the primary has written so far."""
        with psycopg.connect(primary.url(database), autocommit=True) as conn:
            target = conn.execute("SELECT pg_current_wal_lsn()").fetchone()[0]
        deadline = time.monotonic() + deadline_seconds
        with psycopg.connect(self.url(database), autocommit=True) as conn:
            while not conn.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn",
                                   (target,)).fetchone()[0]:
                if time.monotonic() > deadline:
                    raise RuntimeError("the replica did not catch up with the primary")
                time.sleep(0.05)


def pgbouncer_program() -> str | None:
    return shutil.which("pgbouncer") or next(
        (p for p in ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer") if os.path.exists(p)), None)


class PgBouncer:
    """PgBouncer in transaction pooling mode in front of one PostgreSQL server (`server_url`:
    host or Unix socket folder, and port), for every database name, no password (trust)."""

    def __init__(self, root: Path, server_url: str, *, pool_size: int = 20):
        from psycopg.conninfo import conninfo_to_dict
        program = pgbouncer_program()
        if program is None:
            raise RuntimeError("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
        target = conninfo_to_dict(server_url)
        user = service_user()
        root.mkdir(parents=True, exist_ok=True)
        give_to(root, user)
        self.port = free_port()
        self.root = root
        (root / "userlist.txt").write_text('"postgres" ""\n')
        host = target.get("host") or "127.0.0.1"
        # The settings the service needs are in docs/operations.md ("PgBouncer").
        (root / "pgbouncer.ini").write_text(f"""\
[databases]
* = host={host} port={target.get('port') or 5432} user={target.get('user') or 'postgres'}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {self.port}
unix_socket_dir =
auth_type = trust
auth_file = {root / 'userlist.txt'}
pool_mode = transaction
max_client_conn = 500
default_pool_size = {pool_size}
server_reset_query =
server_check_delay = 0
logfile = {root / 'pgbouncer.log'}
pidfile = {root / 'pgbouncer.pid'}
""")
        for name in ("userlist.txt", "pgbouncer.ini"):
            give_to(root / name, user)
        self._command = [program, *(["-u", user] if user else []), str(root / "pgbouncer.ini")]
        self.process = None
        self.start()

    def url(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        """Start (again) on the same port: its clients' URLs stay valid."""
        self.process = subprocess.Popen(self._command, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            wait_for_port(self.port, "pgbouncer", process=self.process)
        except RuntimeError:
            log = self.root / "pgbouncer.log"
            tail = log.read_text(errors="replace")[-1500:] if log.exists() else "(no log)"
            raise RuntimeError(f"pgbouncer did not start; its log ends:\n{tail}") from None

    def close(self) -> None:
        """Stop: every client connection is cut."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
