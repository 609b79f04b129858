"""A throwaway service for the console's screenshots (devtools/console_screenshots.py) and its
bench (bench/console.py): a database of its own, migrated, with the demo catalogue and the demo
ARI; the app on a free local port; the Procfile's worker and webhooks processes beside it.
DATABASE_URL / REDIS_URL name the servers when set, otherwise embedded ones start with their
data under .local/console-stack. The database is dropped and the Redis keys of its prefix
deleted on exit: nothing is left of a run."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import secrets
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import psycopg
import redis
from psycopg import sql
from psycopg.conninfo import make_conninfo

from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.operator.demo_ari import seed_demo_ari
from connectivity.operator.migrations import upgrade
from connectivity.settings import Settings
from connectivity.web.services import services_of
from devtools.live import LiveService, procfile_process, serving
from devtools.stack import LOCAL, EmbeddedPostgres, EmbeddedRedis

DEMO_CATALOG = Path(__file__).resolve().parent.parent / "docs" / "demo-catalog.json"
# The sandbox lets webhooks reach loopback only where the operator allows it (contract 12.3):
# these scripts' receivers listen there. Read by Settings when it knows the setting.
LOOPBACK_SETTING = "webhook_allow_loopback"


@dataclass
class ConsoleStack(LiveService):
    """The stack's service, and the settings a process of it needs (a Procfile's `web` run by
    the bench, say): DATABASE_URL, REDIS_URL, REDIS_PREFIX, SECRET_KEY and the like."""
    procfile_settings: dict[str, str]


def _servers(stack: ExitStack) -> tuple[str, str]:
    server_url, redis_url = os.environ.get("DATABASE_URL"), os.environ.get("REDIS_URL")
    if not server_url:
        pg = EmbeddedPostgres(LOCAL / "console-stack" / "pgdata", "postgres")
        stack.callback(pg.stop)
        server_url = pg.url
    if not redis_url:
        rd = EmbeddedRedis(LOCAL / "console-stack" / "redis", persist=False)
        stack.callback(rd.stop)
        redis_url = rd.url
    return server_url, redis_url


def _fresh_database(stack: ExitStack, server_url: str) -> str:
    name = f"pcs_console_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))

    def drop():
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
                          .format(sql.Identifier(name)))
    stack.callback(drop)
    return make_conninfo(server_url, dbname=name)


def _forget_redis_keys(redis_url: str, prefix: str) -> None:
    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


@contextmanager
def console_stack(more: dict | None = None,
                  process_settings: dict[str, str] | None = None) -> Iterator[ConsoleStack]:
    """The demo catalogue and a year of demo ARI for every sandbox property, served; a
    ConsoleStack to reach it. `more`: properties added to the catalogue and the demo partners'
    mappings of them, `{"properties": [...], "mappings": {partner code: [...]}}` in `catalog
    load`'s shapes. `process_settings`:
    more settings for the worker and webhooks processes (WEBHOOK_RETRY_SCHEDULE, say)."""
    from app import create_app

    with ExitStack() as stack:
        server_url, redis_url = _servers(stack)
        database_url = _fresh_database(stack, server_url)
        upgrade(database_url)
        prefix = f"pcs-console-{uuid.uuid4().hex[:8]}:"
        stack.callback(_forget_redis_keys, redis_url, prefix)
        loopback = {LOOPBACK_SETTING: True} if LOOPBACK_SETTING in {
            f.name for f in dataclasses.fields(Settings)} else {}
        settings = Settings(database_url=database_url, redis_url=redis_url,
                            secret_key=secrets.token_urlsafe(48), redis_prefix=prefix,
                            log_level="WARNING", **loopback)
        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per request otherwise
        app = create_app(settings)
        services = services_of(app)
        stack.callback(services.db.close)
        stack.callback(services.guards.close)
        demo = json.loads(DEMO_CATALOG.read_text())
        demo["properties"] += (more or {}).get("properties", [])
        for partner in demo["partners"]:
            partner["mappings"] += (more or {}).get("mappings", {}).get(partner["code"], [])
        services.db.run(load_catalog, parse_catalog(json.dumps(demo)))
        services.db.run(seed_demo_ari, datetime.now(timezone.utc))
        processes = {"LOG_LEVEL": "WARNING", "DATABASE_URL": database_url,
                     "REDIS_URL": redis_url, "REDIS_PREFIX": prefix,
                     "SECRET_KEY": settings.secret_key, "WEBHOOK_ALLOW_LOOPBACK": "1",
                     **(process_settings or {})}
        stack.enter_context(procfile_process("connectivity.worker", processes))
        stack.enter_context(procfile_process("connectivity.webhook_worker", processes))
        origin = stack.enter_context(serving(app))
        yield ConsoleStack(origin, app, settings.secret_key, processes)
