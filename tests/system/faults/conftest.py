"""Fault tests: a stack of private servers the test may stop (never the shared ones), the app
built on them, the demo catalogue with ARI on LIS1, and keys."""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from flask import Flask

from app import create_app
from connectivity.auth.credentials import SigningVault
from connectivity.store.database import Database
from connectivity.operator.catalog import load_catalog, parse_catalog
from connectivity.operator.keys import IssuedKey, issue_key
from connectivity.operator.migrations import upgrade
from connectivity.settings import Settings
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates

from tests.system.faults.servers import StoppablePostgres, StoppableRedis, stop_quietly
from connectivity.web.services import services_of

ROOT = Path(__file__).resolve().parents[3]
API = "/api/connectivity/v1"
SECRET_KEY = "fault-secret-key-" + "f" * 32
START = dt.date.today() + dt.timedelta(days=5)
NIGHTS = 10


def day(offset: int) -> str:
    return (START + dt.timedelta(days=offset)).isoformat()


@dataclass
class Stack:
    postgres: StoppablePostgres
    redis: StoppableRedis
    settings: Settings
    app: Flask
    db: Database

    def issue(self, preset: str, **options) -> IssuedKey:
        return self.db.run(issue_key, SigningVault(SECRET_KEY), partner_code="acme",
                           name=f"{preset} key", environment="sandbox", preset=preset,
                           **options)


@pytest.fixture
def server_root():
    """A folder for the private servers, outside pytest's tmp_path: as root, pgserver runs
    PostgreSQL as another user, and pytest (any concurrent run too) keeps its base temp
    folder private to the running user."""
    root = Path(tempfile.mkdtemp(prefix="pcs-faults-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def stack(server_root):
    """Private PostgreSQL and Redis, migrated and loaded, and an app on them. A short pool
    timeout: while the database is down a request waits that long for a connection before its
    503, which keeps the test short (production waits DB_POOL_TIMEOUT_SECONDS, 5 s)."""
    t0 = time.monotonic()
    servers = []
    try:
        postgres = StoppablePostgres(server_root)
        servers.append(postgres)
        redis_server = StoppableRedis(server_root)
        servers.append(redis_server)
        upgrade(postgres.url)
        settings = Settings(database_url=postgres.url, redis_url=redis_server.url,
                            secret_key=SECRET_KEY, db_pool_size=4, db_pool_timeout_seconds=0.5,
                            redis_prefix="faults:")
        app = create_app(settings)
        app.config["TESTING"] = True
        db = services_of(app).db
        db.run(load_catalog, parse_catalog((ROOT / "docs" / "demo-catalog.json").read_text()))
        nights = stay_dates(START, NIGHTS)
        set_room_days(db, "LIS1", "DBL", nights, available=500)
        set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
        print(f"\n[faults] private PostgreSQL and Redis ready in {time.monotonic() - t0:.1f} s")
        try:
            yield Stack(postgres, redis_server, settings, app, db)
        finally:
            services_of(app).db.close()
            services_of(app).guards.close()
    finally:
        stop_quietly(*reversed(servers))
