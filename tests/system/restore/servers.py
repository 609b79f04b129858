"""The drill's servers: a PostgreSQL of its own that archives its WAL (the embedded PostgreSQL's
initdb, pg_basebackup and pg_ctl, as devtools/topology.py builds them), killed with SIGKILL and
restored from its base backup, its archive and the WAL that survived on its disk; a Redis of its
own, killed with SIGKILL and replaced by an empty one; the Procfile's worker."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from devtools.stack import EmbeddedRedis
from devtools.topology import PG_BIN, LocalPostgres, free_port, give_to, run_quietly
from tests.ari.workers import children_of, kill_with_work_horses

ROOT = Path(__file__).resolve().parents[3]
# A WAL segment's name: timeline, log and segment, 8 hex digits each.
SEGMENT = re.compile(r"^[0-9A-F]{24}$")


# A segment is archived when full or after this many seconds: what a restore from the archive
# alone can lose.
ARCHIVE_TIMEOUT_SECONDS = 1


def archiving_primary(root: Path) -> tuple[LocalPostgres, Path]:
    """A primary whose every completed WAL segment is copied to `root/archive`, a segment being
    completed at the latest ARCHIVE_TIMEOUT_SECONDS after its first write (restarted once:
    archive_mode is read at server start only)."""
    server = LocalPostgres.primary(root)
    archive = root / "archive"
    archive.mkdir()
    give_to(archive, server.user)
    with open(server.pgdata / "postgresql.conf", "a") as conf:
        # Never overwrite a segment already archived; copy under another name and rename, so
        # that a copy cut short (the server killed meanwhile) is never taken for a segment: a
        # restore_command finding a short segment stops recovery with FATAL.
        conf.write(f"\narchive_mode = on\n"
                   f"archive_command = 'test ! -f {archive}/%f && cp %p {archive}/%f.tmp "
                   f"&& mv {archive}/%f.tmp {archive}/%f'\n"
                   f"archive_timeout = {ARCHIVE_TIMEOUT_SECONDS}\n")
    server.stop()
    server.start()
    return server, archive


def base_backup(server: LocalPostgres, target: Path) -> None:
    """pg_basebackup in plain format, with the WAL the backup itself needs (-X stream)."""
    run_quietly([PG_BIN / "pg_basebackup", "-h", "127.0.0.1", "-p", server.port, "-U", "postgres",
                 "-D", target, "-X", "stream", "--no-sync", "--checkpoint=fast",
                 "--label=restore-drill"], server.user)


def kill_postgres(server: LocalPostgres) -> None:
    """SIGKILL to the postmaster and every process under it (an archive_command's copy too):
    no shutdown checkpoint, no last WAL segment archived."""
    postmaster = int((server.pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
    # The postmaster first: it would start processes again after a child's death.
    for pid in [postmaster, *descendants_of(postmaster)]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 10
    while Path(f"/proc/{postmaster}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    server.running = False


def descendants_of(pid: int) -> list[int]:
    """Deepest first."""
    found = []
    for child in children_of(pid):
        found += [*descendants_of(child), child]
    return found


def surviving_segments(server: LocalPostgres) -> list[Path]:
    return sorted(p for p in (server.pgdata / "pg_wal").iterdir() if SEGMENT.match(p.name))


def restore(backup: Path, archive: Path, surviving_wal: list[Path], pgdata: Path,
            user: str | None) -> LocalPostgres:
    """A new data folder from the base backup, set to replay the archive and then the WAL
    copied from the dead server's disk, if any (PostgreSQL reads a segment from pg_wal when
    restore_command has none: the last, partial one is never archived), to its end, and to
    open on a new timeline. Not started."""
    run_quietly(["cp", "-a", backup, pgdata], user)
    if surviving_wal:
        run_quietly(["cp", *surviving_wal, pgdata / "pg_wal"], user)
    server = LocalPostgres(pgdata, free_port(), user)
    with open(pgdata / "postgresql.auto.conf", "a") as conf:
        conf.write(f"\nport = {server.port}\n"
                   f"restore_command = 'cp {archive}/%f %p'\n"
                   "recovery_target_timeline = 'latest'\n"
                   # The drill restores the same archive twice: the first restore's new
                   # timeline must not be archived there, or the second would follow it.
                   "archive_mode = off\n")
    (pgdata / "recovery.signal").touch()
    give_to(pgdata / "recovery.signal", user)
    return server


def wait_until_writable(server: LocalPostgres, deadline_seconds: float = 30) -> None:
    """Until recovery has ended and the server accepts writes (pg_ctl -w returns once it
    accepts connections, which a hot standby does while still replaying)."""
    deadline = time.monotonic() + deadline_seconds
    while True:
        try:
            with psycopg.connect(server.url(), autocommit=True, connect_timeout=2) as conn:
                if not conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
                    return
        except psycopg.OperationalError:
            pass
        if time.monotonic() > deadline:
            tail = server.log.read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the restored server did not leave recovery; its log ends:\n"
                               f"{tail}")
        time.sleep(0.02)


def kill_redis(redis_server: EmbeddedRedis) -> None:
    redis_server.process.send_signal(signal.SIGKILL)
    redis_server.process.wait(10)


def start_worker(database_url: str, redis_url: str, redis_prefix: str, secret_key: str,
                 log: Path, *extra_args: str, **extra_env: str) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": redis_url,
           "REDIS_PREFIX": redis_prefix, "SECRET_KEY": secret_key, **extra_env}
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", "connectivity.worker", *extra_args],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)


def kill_worker(worker: subprocess.Popen) -> None:
    """SIGKILL to the worker and any work horse it forked."""
    kill_with_work_horses(worker)
