"""What a /metrics scrape costs in PostgreSQL when ari_batches is large: a scratch database
with BATCHES batches (one in a thousand unfinished, one accepted every 0.6 s), then the
stored-state collector timed. Not part of `make bench` (it is a one-off figure for
docs/operations.md); it needs DATABASE_URL and REDIS_URL and drops its database afterwards.

    DATABASE_URL=... REDIS_URL=... .venv/bin/python -m bench.metrics_scrape [BATCHES]"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import psycopg
import redis
from prometheus_client import CollectorRegistry, generate_latest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from connectivity.ari.queue import BatchQueue
from connectivity.store.database import Database
from connectivity.metrics.stored import StoredStateCollector
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.operator.migrations import upgrade

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = "pcs_metrics_scratch"
FILL = """
INSERT INTO ari_batches (id, seq, partner_id, environment, mapping_id, property_id, hotel_code,
                         kind, items, item_count, applied_count, status, received_at, started_at,
                         applied_at)
SELECT 'b-' || g, g, %(partner)s, %(environment)s, %(mapping)s, %(property)s, %(hotel)s, 'ari',
       '[{"a":1}]', 1, CASE WHEN g %% 1000 = 0 THEN 0 ELSE 1 END,
       CASE WHEN g %% 1000 = 0 THEN 'queued' ELSE 'applied' END,
       now() - make_interval(secs => (%(n)s - g) * 0.6),
       now() - make_interval(secs => (%(n)s - g) * 0.6) + interval '0.1 s',
       CASE WHEN g %% 1000 = 0 THEN NULL
            ELSE now() - make_interval(secs => (%(n)s - g) * 0.6) + interval '0.3 s' END
  FROM generate_series(1, %(n)s) AS g"""


def main() -> None:
    batches = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    server = os.environ["DATABASE_URL"]
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(SCRATCH)))
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(SCRATCH)))
    url = make_conninfo(server, dbname=SCRATCH)
    db = Database(url, max_size=2)
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    try:
        upgrade(url)
        db.run(load_catalog, parse_catalog((ROOT / "docs" / "demo-catalog.json").read_text()))
        started = time.perf_counter()
        with db.connection() as conn:
            mapping = conn.execute("SELECT id, partner_id, property_id, environment, hotel_code "
                                   "FROM partner_properties LIMIT 1").fetchone()
            conn.execute(FILL, {"partner": mapping["partner_id"], "mapping": mapping["id"],
                                "environment": mapping["environment"], "n": batches,
                                "property": mapping["property_id"],
                                "hotel": mapping["hotel_code"]})
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE ari_batches")
        print(f"{batches} batches written in {time.perf_counter() - started:.0f} s")
        registry = CollectorRegistry()
        registry.register(StoredStateCollector(db, BatchQueue(client, "pcs-metrics-scratch:")))
        timings = []
        for _ in range(9):
            started = time.perf_counter()
            page = generate_latest(registry).decode()
            timings.append((time.perf_counter() - started) * 1000)
        print(f"stored-state figures per scrape: median {statistics.median(timings):.1f} ms, "
              f"min {min(timings):.1f}, max {max(timings):.1f} (9 scrapes)")
        print(*(line for line in page.splitlines() if line.startswith(
            ("pcs_ari_batches_unfinished", "pcs_ari_batches_finished_recent{status=\"applied\"}",
             "pcs_metrics_source_up"))), sep="\n")
    finally:
        db.close()
        client.close()
        with psycopg.connect(server, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                sql.Identifier(SCRATCH)))


if __name__ == "__main__":
    main()
