"""Where the CPU went during a measured phase, from /proc (Linux only; elsewhere nothing is
reported): the web server's processes, the bench database's PostgreSQL backends, Redis, the load
client, and the machine as a whole. On 2 cores these tell whether a figure is the service's
limit or the client's, and per request they show what a change saved.

Processes are picked by pid (gunicorn's master and its children; the backends connected to the
bench database, on a Citus cluster on every node of it; the Redis server's own pid), so other
work on the machine (another test run's PostgreSQL, say) is not charged to the scenario, though
it still shows in the machine's share.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path

import psycopg
import redis
from psycopg.conninfo import conninfo_to_dict, make_conninfo

PROC = Path("/proc")
TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat(pid: int) -> tuple[int, float] | None:
    """(ppid, cpu seconds) of one process, or None if it is gone."""
    try:
        raw = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2:].split()
    # fields[0] is the state, fields[1] the ppid, fields[11] and [12] utime and stime.
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def _machine() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot."""
    values = [int(v) for v in (PROC / "stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / TICK, sum(values[:8]) / TICK


class Sampler:
    def __init__(self, database_url: str, redis_url: str, worker_urls: Sequence[str] = ()):
        # A Citus cluster's workers run the shards' statements in backends of their own: those
        # serving the bench database count as PostgreSQL's too (until 11-30 only the
        # coordinator's did, and the workers' CPU fell under "other").
        dbname = conninfo_to_dict(database_url).get("dbname")
        self._database_urls = [database_url] + [make_conninfo(url, dbname=dbname)
                                                for url in worker_urls]
        self._enabled = (PROC / "stat").exists()
        try:
            self._redis_pid = int(redis.Redis.from_url(redis_url).info("server")["process_id"])
        except (redis.RedisError, KeyError, ValueError):
            self._redis_pid = None

    def _backends(self) -> set[int]:
        # Backends on this machine serving the bench database (a remote server's pids mean
        # nothing here; then none of them is found in /proc and PostgreSQL reads as 0).
        pids = set()
        for url in self._database_urls:
            with psycopg.connect(url, autocommit=True) as conn:
                pids |= {r[0] for r in conn.execute(
                    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid()")}
        return pids

    def snapshot(self, server_pid: int | None) -> dict | None:
        """CPU seconds so far, per group and pid."""
        if not self._enabled:
            return None
        groups: dict[str, dict[int, float]] = {"server": {}, "postgres": {}, "redis": {}}
        backends = self._backends()
        for entry in PROC.iterdir():
            if not entry.name.isdigit():
                continue
            pid = int(entry.name)
            if pid not in backends and pid != self._redis_pid and server_pid is None:
                continue
            stat = _stat(pid)
            if stat is None:
                continue
            ppid, seconds = stat
            if server_pid is not None and server_pid in (pid, ppid):
                groups["server"][pid] = seconds
            elif pid in backends:
                groups["postgres"][pid] = seconds
            elif pid == self._redis_pid:
                groups["redis"][pid] = seconds
        busy, total = _machine()
        return {"groups": groups, "machine_busy": busy, "machine_total": total,
                "at": time.perf_counter()}


def process_tree_seconds(root_pid: int) -> float:
    """CPU seconds of a process and its direct children (gunicorn's master and workers)."""
    total = 0.0
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat and (int(entry.name) == root_pid or stat[0] == root_pid):
                total += stat[1]
    return total


def background_share(seconds: float = 1.0) -> float | None:
    """The machine's busy share while the bench itself sends nothing: other work competing for
    the cores (a test run, a build) makes the figures that follow lower than the service's."""
    if not (PROC / "stat").exists():
        return None
    busy0, total0 = _machine()
    time.sleep(seconds)
    busy1, total1 = _machine()
    return round((busy1 - busy0) / (total1 - total0), 3) if total1 > total0 else None


def usage(before: dict | None, after: dict | None, requests: int,
          client_cpu_s: float) -> dict | None:
    """CPU milliseconds per request per group, and the machine's busy share (of all cores). A
    process that appeared during the phase counts whole; one that ended is lost (rare)."""
    if not before or not after or requests <= 0:
        return None
    out, attributed = {}, client_cpu_s
    for group, pids in after["groups"].items():
        spent = sum(s - before["groups"][group].get(pid, 0.0) for pid, s in pids.items())
        attributed += spent
        out[f"{group}_ms_per_request"] = round(spent * 1000 / requests, 3)
    out["client_ms_per_request"] = round(client_cpu_s * 1000 / requests, 3)
    total = after["machine_total"] - before["machine_total"]
    if total > 0:
        busy = after["machine_busy"] - before["machine_busy"]
        out["machine_busy_share"] = round(busy / total, 3)
        # The machine's busy CPU seconds, for a figure that takes another's share out
        # (under_writes.py `reads_less_the_stream`).
        out["machine_busy_s"] = round(busy, 3)
        # Busy time no process of the run accounts for: the kernel's network work (softirq),
        # and any other program on the machine. Much above a few percent, the run had company.
        out["unattributed_share"] = round(max(0.0, busy - attributed) / total, 3)
    return out
