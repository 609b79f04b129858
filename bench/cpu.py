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
LISTEN = "0A"  # a listening socket's state in /proc/net/tcp


def process_stat(pid: int) -> tuple[int, float] | None:
    """(ppid, cpu seconds) of one process, or None if it is gone."""
    try:
        raw = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    fields = raw[raw.rindex(")") + 2:].split()
    # fields[0] is the state, fields[1] the ppid, fields[11] and [12] utime and stime.
    return int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK


def cpu_seconds(pid: int) -> float | None:
    """CPU seconds of one process so far, or None if it is gone."""
    stat = process_stat(pid)
    return None if stat is None else stat[1]


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

    def _backends(self) -> list[list[tuple[int, int | None, str]]]:
        """(pid, client port, application name) of each backend serving the bench database,
        per node (the coordinator, or the one server, first). A remote server's pids mean
        nothing here: then none of them is found in /proc and PostgreSQL reads as 0."""
        nodes = []
        for url in self._database_urls:
            with psycopg.connect(url, autocommit=True) as conn:
                nodes.append(conn.execute(
                    "SELECT pid, client_port, coalesce(application_name, '') "
                    "FROM pg_stat_activity WHERE datname = current_database() "
                    "AND pid <> pg_backend_pid()").fetchall())
        return nodes

    def snapshot(self, server_pid: int | None, writer_pids: Sequence[int] = ()) -> dict | None:
        """CPU seconds so far, per group and pid, and those of the backends that serve the
        server under measure (`roles`, `reads`). `writer_pids`: processes writing beside it,
        each with its children (under_writes.py's stream), counted as `writers`."""
        if not self._enabled:
            return None
        groups: dict[str, dict[int, float]] = {"server": {}, "writers": {}, "postgres": {},
                                               "redis": {}}
        nodes = self._backends()
        backends = {pid for node in nodes for pid, _, _ in node}
        writers = set(writer_pids)
        for entry in PROC.iterdir():
            if not entry.name.isdigit():
                continue
            pid = int(entry.name)
            if pid not in backends and pid != self._redis_pid and server_pid is None:
                continue
            stat = process_stat(pid)
            if stat is None:
                continue
            ppid, seconds = stat
            if server_pid is not None and server_pid in (pid, ppid):
                groups["server"][pid] = seconds
            elif writers & {pid, ppid}:
                groups["writers"][pid] = seconds
            elif pid in backends:
                groups["postgres"][pid] = seconds
            elif pid == self._redis_pid:
                groups["redis"][pid] = seconds
        roles = backend_roles(nodes, {"reads": set(groups["server"])})
        busy, total = _machine()
        return {"groups": groups, "machine_busy": busy, "machine_total": total,
                # Of the server's: the machine's read model (its catch-ups, its answers).
                "model_host": {pid: seconds for pid, seconds in groups["server"].items()
                               if is_host(pid)},
                "roles": {role: {pid: groups["postgres"][pid] for pid in pids
                                 if pid in groups["postgres"]}
                          for role, pids in roles.items()},
                "at": time.perf_counter()}


def backend_roles(nodes: list[list[tuple[int, int | None, str]]],
                  clients: dict[str, set[int]]) -> dict[str, set[int]]:
    """Which backends serve which clients (role: the client's pids). On the coordinator (or the
    one server), by the client's end of the connection: the backend's client port is a port
    of a socket the client's process holds. On a Citus worker, by the global pid that Citus
    names in a shard task's connection (`citus_internal gpid=<node id x 10^10 + pid>`, on a
    worker or on the coordinator itself): the coordinator backend the task runs for, whose role
    it takes. The nodes of a bench cluster share this machine, so a pid names one process.
    Backends of no client named (background workers, Citus's maintenance, the sampler's peers,
    other clients) are in no role. {} when the server is reached over a Unix socket (the
    embedded default), whose backends show no client port."""
    if not nodes or not any(port is not None and port > 0 for _, port, _ in nodes[0]):
        return {}
    ports = {role: _client_ports(pids) for role, pids in clients.items()}
    roles: dict[str, set[int]] = {role: set() for role in clients}
    of_pid: dict[int, str] = {}
    for pid, port, _ in nodes[0]:
        role = next((r for r, held in ports.items() if port in held), None)
        if role is not None:
            roles[role].add(pid)
            of_pid[pid] = role
    for node in nodes:  # the coordinator too: it may connect to itself for a task
        for pid, _, name in node:
            gpid = name.removeprefix(CITUS_TASK_PREFIX)
            if gpid != name and gpid.isdigit() and int(gpid) % 10 ** 10 in of_pid:
                roles[of_pid[int(gpid) % 10 ** 10]].add(pid)
    return roles


CITUS_TASK_PREFIX = "citus_internal gpid="


def is_host(pid: int) -> bool:
    """The model host, not a worker (False once it is gone)."""
    try:
        return b"read_model.host" in (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return False


def _socket_inodes(pid: int) -> set[int]:
    """The inodes of the sockets a process holds (/proc/<pid>/fd)."""
    inodes = set()
    try:
        fds = os.listdir(PROC / str(pid) / "fd")
    except OSError:
        return inodes
    for fd in fds:
        try:
            target = os.readlink(PROC / str(pid) / "fd" / fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def _tcp_sockets() -> list[tuple[int, str, int]]:
    """(local port, state as /proc/net writes it, inode) of every TCP socket."""
    sockets = []
    for table in ("tcp", "tcp6"):
        try:
            lines = (PROC / "net" / table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            sockets.append((int(fields[1].rsplit(":", 1)[1], 16), fields[3], int(fields[9])))
    return sockets


def _client_ports(pids: set[int]) -> set[int]:
    """The local TCP ports of the sockets these processes hold (/proc/<pid>/fd, /proc/net)."""
    inodes = set().union(*(_socket_inodes(pid) for pid in pids))
    return {port for port, _, inode in _tcp_sockets() if inode in inodes}


def listening_pids(port: int) -> set[int]:
    """The processes holding the socket that listens on `port` (gunicorn's master and its
    workers, for a web server's port)."""
    inodes = {inode for local, state, inode in _tcp_sockets()
              if local == port and state == LISTEN}
    return {int(entry.name) for entry in PROC.iterdir()
            if entry.name.isdigit() and _socket_inodes(int(entry.name)) & inodes}


def process_tree(root_pid: int) -> dict[int, float]:
    """CPU seconds of a process and of each of its direct children (gunicorn's master, its
    workers and the model host), by pid."""
    tree = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            stat = process_stat(int(entry.name))
            if stat and (int(entry.name) == root_pid or stat[0] == root_pid):
                tree[int(entry.name)] = stat[1]
    return tree


def process_tree_seconds(root_pid: int) -> float:
    """CPU seconds of a process and its direct children, together."""
    return sum(process_tree(root_pid).values())


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
    # What the requests under measure cost in processes of their own: the server's and the
    # backends serving it (on Citus, on every node). Apart from a stream of writes through
    # another server (under_writes.py), and from what neither names (Redis, which both use;
    # PostgreSQL's background processes; the kernel). Only over TCP (`backend_roles`).
    roles = {role: sum(s - before["groups"]["postgres"].get(pid, 0.0)
                       for pid, s in pids.items())
             for role, pids in after.get("roles", {}).items()}
    # The server's share that is its model host: known over a Unix socket too.
    host = sum(s - before.get("model_host", {}).get(pid, 0.0)
               for pid, s in after.get("model_host", {}).items())
    out["model_host_ms_per_request"] = round(host * 1000 / requests, 3)
    if roles:
        out["postgres_reads_ms_per_request"] = round(roles["reads"] * 1000 / requests, 3)
        out["reads_own_ms_per_request"] = round(
            out["server_ms_per_request"] + out["postgres_reads_ms_per_request"], 3)
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
