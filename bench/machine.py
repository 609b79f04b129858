"""The machine and software a run measured, recorded with its figures: figures from another
machine are not comparable, and on a small one the core count decides most of them."""

from __future__ import annotations

import os
import platform
import runpy
from importlib import metadata
from pathlib import Path

import psycopg
import redis

ROOT = Path(__file__).resolve().parent.parent


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def gunicorn_settings() -> dict:
    """workers, threads and worker class as gunicorn.conf.py computes them in this environment
    (the server gets the same WEB_CONCURRENCY / WEB_THREADS)."""
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    return {k: conf.get(k) for k in ("workers", "worker_class", "threads", "keepalive")}


def code_version() -> dict:
    """The commit measured, and the files changed since (figures of a dirty tree say so)."""
    import subprocess
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                                capture_output=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                 cwd=ROOT, text=True, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "changed": []}
    return {"commit": commit, "changed": [line[3:] for line in changed.splitlines()]}


def describe(database_url: str, redis_url: str, embedded: list) -> dict:
    with psycopg.connect(database_url) as conn:
        pg_version = conn.execute("SHOW server_version").fetchone()[0]
        pg_settings = dict(conn.execute(
            "SELECT name, setting || coalesce(unit, '') FROM pg_settings WHERE name IN "
            "('shared_buffers', 'work_mem', 'max_connections', 'jit')").fetchall())
    redis_version = redis.Redis.from_url(redis_url).info("server")["redis_version"]
    return {
        "cpu_model": _cpu_model(),
        "cores": os.cpu_count(),
        "cores_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "ram_gib": _ram_gib(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "postgresql": pg_version,
        "postgresql_settings": pg_settings,
        "redis": redis_version,
        "servers": ", ".join(type(s).__name__ for s in embedded) or "DATABASE_URL / REDIS_URL",
        "packages": {p: metadata.version(p) for p in ("flask", "gunicorn", "psycopg", "limits",
                                                     "redis", "structlog")},
        "gunicorn": gunicorn_settings(),
        "settings": {k: os.environ[k] for k in ("WEB_CONCURRENCY", "WEB_THREADS", "DB_POOL_SIZE",
                                                "LOG_LEVEL") if k in os.environ},
    }


def one_line(machine: dict) -> str:
    g = machine["gunicorn"]
    return (f"{machine['cpu_model']}, {machine['cores']} cores, {machine['ram_gib']} GiB RAM; "
            f"PostgreSQL {machine['postgresql']}, Redis {machine['redis']}, Python "
            f"{machine['python']}; gunicorn {g['workers']} workers x {g['threads']} threads "
            f"({g['worker_class']})")
