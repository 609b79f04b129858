"""Helpers shared by the operator CLI tests: a CLI runner, catalogue files and database snapshots.

Everything runs against the real PostgreSQL and Redis of tests/conftest.py."""

from __future__ import annotations

import copy
import json
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from tests.conftest import DEMO_CATALOG

CATALOG_TABLES = (
    "properties", "room_types", "rate_plans", "rate_plan_room_types", "partners",
    "partner_properties", "partner_room_types", "partner_rate_plans", "fx_rates",
)


def demo_data() -> dict:
    """A fresh, mutable copy of docs/demo-catalog.json as plain JSON values."""
    return json.loads(DEMO_CATALOG.read_text(encoding="utf-8"))


@pytest.fixture
def cli(app):
    """app.test_cli_runner().invoke inside an application context.

    The command groups are plain click.Group objects added to app.cli: `flask --app app ...`
    (FlaskGroup) pushes the app context for them, but app.cli alone (what the test runner
    invokes) does not, so the test pushes it as the real CLI would."""
    runner = app.test_cli_runner()

    def invoke(*args: str):
        with app.app_context():
            return runner.invoke(args=[str(a) for a in args])
    return invoke


def output_of(result) -> str:
    """stdout and stderr of a CLI run, whichever the message went to."""
    text = result.output or ""
    try:
        err = result.stderr
    except ValueError:
        err = ""
    if err and err not in text:
        text += err
    return text


@pytest.fixture
def write_catalog(tmp_path):
    counter = {"n": 0}

    def write(data, name: str | None = None) -> Path:
        counter["n"] += 1
        path = tmp_path / (name or f"catalog-{counter['n']}.json")
        if isinstance(data, str):
            path.write_text(data, encoding="utf-8")
        else:
            path.write_text(json.dumps(copy.deepcopy(data)), encoding="utf-8")
        return path
    return write


@pytest.fixture
def pg(services):
    """A plain autocommit connection to the test database, for reading and for raw inserts."""
    with psycopg.connect(services.database_url, autocommit=True) as conn:
        yield conn


def snapshot(conn: psycopg.Connection, tables=CATALOG_TABLES) -> dict[str, list[tuple]]:
    """Every row of every table, all columns but the timestamps, in a stable order."""
    state = {}
    for table in tables:
        cols = [r[0] for r in conn.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND table_name = %s "
            "AND data_type NOT LIKE 'timestamp%%' ORDER BY ordinal_position", (table,))]
        assert cols, f"no columns found for table {table}"
        rows = conn.execute(sql.SQL("SELECT {} FROM {}").format(
            sql.SQL(", ").join(sql.Identifier(c) for c in cols), sql.Identifier(table))).fetchall()
        state[table] = sorted((tuple(zip(cols, row)) for row in rows), key=repr)
    return state


@pytest.fixture
def empty_database(services):
    """The URL of an empty database of its own on the test server (no migrations applied),
    dropped after the test: for what the migrations do to a database."""
    name = f"migrations_{uuid.uuid4().hex[:8]}"
    admin_url = make_conninfo(services.database_url, dbname="postgres")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    yield make_conninfo(services.database_url, dbname=name)
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(name)))
