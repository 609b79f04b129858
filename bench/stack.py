"""The servers a bench run talks to: the ones named by DATABASE_URL / REDIS_URL when set,
otherwise an embedded PostgreSQL and Redis with their data under .local/bench-* (kept between
runs, so the generated data set survives). Either way the bench works in a database of its own
and under a Redis key prefix of its own, so it never touches the service's or the tests' data."""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field

import psycopg
import redis
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.rows import dict_row

from connectivity.store import sharding
from devtools.citus_nodes import host_port, prepare_database
from devtools.stack import LOCAL, EmbeddedPostgres, EmbeddedRedis, secret_key
from connectivity.operator.citus import DEFAULT_SHARD_COUNT, citus_version, distribute
from connectivity.operator.migrations import upgrade
from connectivity.store.queries import MIGRATIONS_DIR, queries

# BENCH_DATABASE names another database on the same server, so that two checkouts whose
# migrations differ (branches in progress) do not drop and regenerate each other's.
BENCH_DATABASE = os.environ.get("BENCH_DATABASE", "pcs_bench")
REDIS_PREFIX = "pcs-bench:"


@dataclass
class Stack:
    database_url: str
    redis_url: str
    secret_key: str
    embedded: list = field(default_factory=list)
    # Under --citus: the workers (URLs to any database of theirs), which hold the bench
    # database too.
    citus_workers: list[str] = field(default_factory=list)

    @property
    def redis_prefix(self) -> str:
        return REDIS_PREFIX

    def clear_redis(self) -> int:
        """Drop this bench's Redis keys (rate-limit windows, nonces) from earlier runs."""
        client = redis.Redis.from_url(self.redis_url)
        keys = list(client.scan_iter(match=f"{REDIS_PREFIX}*", count=1000))
        if keys:
            client.delete(*keys)
        return len(keys)

    def stop(self) -> None:
        for service in reversed(self.embedded):
            service.stop()
        self.embedded.clear()

    def start_over(self) -> None:
        """The bench database dropped and made again, empty and migrated."""
        _recreate_database(self.database_url, self.citus_workers)
        applied = upgrade(self.database_url)
        _record_migrations(self.database_url)
        print(f"bench database migrated: {', '.join(applied)}", flush=True)


def start_stack(*, citus: bool = False, database: str = BENCH_DATABASE) -> Stack:
    embedded = []
    server_url = os.environ.get("DATABASE_URL")
    workers = []
    if citus:
        workers = [u for u in os.environ.get("CITUS_WORKER_URLS", "").split(",") if u]
        if not server_url or not workers:
            raise SystemExit("--citus needs DATABASE_URL (the coordinator) and CITUS_WORKER_URLS "
                             "(`set -a; . .local/citus/env; set +a` while `make citus` runs)")
        for line in prepare_database(server_url, workers, database):
            print(line, flush=True)
    if server_url:
        _create_database(server_url, database)
        database_url = make_conninfo(server_url, dbname=database)
    else:
        print("DATABASE_URL unset: starting an embedded PostgreSQL under .local/bench-pgdata",
              flush=True)
        pg = EmbeddedPostgres(LOCAL / "bench-pgdata", database)
        embedded.append(pg)
        database_url = pg.url
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        print("REDIS_URL unset: starting an embedded Redis under .local/bench-redis", flush=True)
        rd = EmbeddedRedis(LOCAL / "bench-redis", persist=False)
        embedded.append(rd)
        redis_url = rd.url
    stack = Stack(database_url, redis_url,
                  os.environ.get("SECRET_KEY") or secret_key(LOCAL / "bench-secret_key"),
                  embedded, workers)
    try:
        if _migrations_edited(database_url):
            print("a migration applied to the bench database has been edited since: dropping "
                  "and recreating the bench database"
                  + (" on every node" if workers else ""), flush=True)
            stack.start_over()
        else:
            applied = upgrade(database_url)
            _record_migrations(database_url)
            if applied:
                print(f"bench database migrated: {', '.join(applied)}", flush=True)
    except BaseException:
        stack.stop()
        raise
    return stack


def distribute_bench_database(database_url: str, worker_urls: list[str]) -> None:
    """`citus distribute` on the bench database once its data set is in (Citus copies the rows
    into the shards); a database distributed already is left as it is. Refuses (SystemExit)
    unless the database then is what the figures claim to measure: see citus_problems."""
    started = time.monotonic()
    with psycopg.connect(database_url, autocommit=True, row_factory=dict_row) as conn:
        results = distribute(conn, int(os.environ.get("CITUS_SHARD_COUNT", DEFAULT_SHARD_COUNT)))
        seconds = time.monotonic() - started
        problems = [f"not placed: {p.line()}" for p in results if p.outcome in ("failed", "undone")]
        problems += citus_problems(conn, worker_urls)
    if problems:
        raise SystemExit(f"--citus: {describe_url(database_url)} is not a distributed bench "
                         "database, so nothing is measured:\n  " + "\n  ".join(problems))
    placed = sum(p.outcome == "placed" for p in results)
    print(f"citus distribute: {placed} table(s) placed in {seconds:.0f} s" if placed
          else "citus distribute: already distributed", flush=True)


def is_distributed(database_url: str) -> bool:
    """Whether any table of the database is a Citus table already."""
    with psycopg.connect(database_url, autocommit=True, row_factory=dict_row) as conn:
        return citus_version(conn) is not None and any(queries().operator.placements(conn))


def citus_problems(conn: psycopg.Connection, worker_urls: list[str]) -> list[str]:
    """Why the database of `conn` (autocommit, dict rows, on the coordinator) is not one spread
    over `worker_urls`; empty when it is: the extension there, every worker an active node of
    it, every table of the sharding plan a Citus table as planned, with shards on every
    worker."""
    if citus_version(conn) is None:
        return ["no citus extension in the database: a plain PostgreSQL database"]
    problems = []
    active = {(r["nodename"], r["nodeport"]) for r in conn.execute(
        "SELECT nodename, nodeport FROM pg_dist_node WHERE noderole = 'primary' AND isactive")}
    wanted = {host_port(url) for url in worker_urls}
    problems += [f"worker {host}:{port} is not an active node of this database"
                 for host, port in sorted(wanted - active)]
    placed = {row["table_name"]: row for row in queries().operator.placements(conn)}
    holders = {r["table_name"]: set(r["nodes"]) for r in conn.execute(
        "SELECT s.logicalrelid::regclass::text AS table_name, "
        "       array_agg(DISTINCT n.nodename || ':' || n.nodeport) AS nodes "
        "  FROM pg_dist_shard s JOIN pg_dist_placement p ON p.shardid = s.shardid "
        "  JOIN pg_dist_node n ON n.groupid = p.groupid GROUP BY 1")}
    for table in sorted(sharding.planned_tables() - set(sharding.COORDINATOR_LOCAL)):
        row = placed.get(table)
        column = sharding.distribution_column(table)
        if row is None:
            problems.append(f"{table} is not a Citus table")
        elif not ((row["partmethod"], row["distribution_column"]) == ("h", column) if column
                  else (row["partmethod"], row["repmodel"]) == ("n", "t")):
            problems.append(f"{table} is not placed as planned")
        else:
            missing = {f"{h}:{p}" for h, p in wanted} - holders.get(table, set())
            if missing:
                problems.append(f"{table} has no shard on {', '.join(sorted(missing))}")
    return problems


# The ledger of `db upgrade` records versions, not contents, so a migration edited in place (as
# happens before it is committed) would leave the bench database on the old schema for good. The
# bench database is disposable: the bench records each applied file's hash and starts over when
# one differs. A new migration is simply applied.
HASHES_DDL = "CREATE TABLE IF NOT EXISTS bench_migrations (version text PRIMARY KEY, sha256 text NOT NULL)"


def _migration_hashes() -> dict[str, str]:
    return {p.stem: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(MIGRATIONS_DIR.glob("*.sql"))}


def _migrations_edited(database_url: str) -> bool:
    with psycopg.connect(database_url, autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('bench_migrations')").fetchone()[0] is None:
            return False
        recorded = dict(conn.execute("SELECT version, sha256 FROM bench_migrations").fetchall())
    current = _migration_hashes()
    return any(current.get(version) != digest for version, digest in recorded.items())


def _record_migrations(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(HASHES_DDL)
        applied = {r[0] for r in conn.execute("SELECT version FROM schema_migrations")}
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO bench_migrations VALUES (%s, %s) ON CONFLICT (version) "
                            "DO UPDATE SET sha256 = EXCLUDED.sha256",
                            [(v, h) for v, h in _migration_hashes().items() if v in applied])


def _recreate_database(database_url: str, worker_urls: list[str]) -> None:
    """Drop and create the database of `database_url`; on a Citus cluster (`worker_urls`) on
    every node, with the extension and the workers joined, since CREATE DATABASE is not
    propagated: created on the coordinator alone it would be a plain database, and a bench
    against it would pass plain PostgreSQL's figures off as Citus's."""
    name = conninfo_to_dict(database_url)["dbname"]
    admin_url = make_conninfo(database_url, dbname="postgres")
    for url in [admin_url] + [make_conninfo(u, dbname="postgres") for u in worker_urls]:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
                          .format(sql.Identifier(name)))
    if worker_urls:
        for line in prepare_database(admin_url, worker_urls, name):
            print(line, flush=True)
        return
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def _create_database(server_url: str, name: str) -> None:
    with psycopg.connect(server_url, autocommit=True) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            print(f"created database {name} on {describe_url(server_url)}", flush=True)


def describe_url(url: str) -> str:
    """host:port/dbname of a URL, without credentials, for printing."""
    parts = conninfo_to_dict(url)
    return f"{parts.get('host', 'localhost')}:{parts.get('port', 5432)}/{parts.get('dbname', '')}"
