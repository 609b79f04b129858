"""Tests of the Citus cluster itself (tests/support/oncitus.py): where the rows live, which nodes a
request talks to, what a stopped node does. Each needs PCS_TEST_ON_CITUS=1 and says it was
skipped without it."""

from __future__ import annotations

import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field

import psycopg
import pytest
from psycopg import sql

from app import create_app
from connectivity.operator.catalog import load_catalog, parse_catalog
from tests.bookings.conftest import START as BOOKING_START
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates
from tests.support.oncitus import CitusRun
from connectivity.web.services import services_of

API = "/api/connectivity/v1"


@pytest.fixture
def citus(services) -> CitusRun:
    if services.citus is None:
        pytest.skip("needs a Citus cluster: run with PCS_TEST_ON_CITUS=1 (.ci/run's last pass)")
    return services.citus


# Enough partners that, hashed over 4 shards on two workers, some claims land beside LIS1's
# rows and some on the other worker.
PARTNERS = [f"p{n}" for n in range(1, 9)]


def partners_catalog() -> str:
    return json.dumps({"partners": [
        {"code": code, "name": f"Partner {code}", "mappings": [
            {"property": "LIS1", "hotel_code": f"{code.upper()}-LIS", "active": True,
             "room_types": {"DBL": f"{code.upper()}-DBL"},
             "rate_plans": {"BAR": f"{code.upper()}-BAR"}}]}
        for code in PARTNERS]})


@pytest.fixture
def partners(citus, db, catalog):
    db.run(load_catalog, parse_catalog(partners_catalog()))
    nights = stay_dates(BOOKING_START, 4)
    set_room_days(db, "LIS1", "DBL", nights, available=50)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00", single_rate="80.00",
                  extra_adult_rate="30.00", extra_child_rate="15.00")
    with psycopg.connect(citus.url) as conn:
        lis1 = conn.execute("SELECT id FROM properties WHERE code = 'LIS1'").fetchone()[0]
        ids = dict(conn.execute("SELECT code, id FROM partners WHERE code = ANY(%s)",
                                (PARTNERS,)).fetchall())
        rows_node = node_of(conn, "bookings", lis1)
        claims_node = {code: node_of(conn, "booking_claims", ids[code]) for code in PARTNERS}
    both = {node == rows_node for node in claims_node.values()}
    assert both == {True, False}, "every claim on one side: add partners"
    return rows_node, claims_node


def codes(partner: str) -> dict:
    p = partner.upper()
    return {"hotel_code": f"{p}-LIS", "room_type_code": f"{p}-DBL", "rate_plan_code": f"{p}-BAR"}


def node_of(conn, table: str, value: int) -> int:
    """The port of the worker holding `table`'s shard for distribution value `value`."""
    return conn.execute(
        "SELECT nodeport FROM pg_dist_shard_placement "
        "WHERE shardid = get_shard_id_for_distribution_column(%s, %s)",
        (table, value)).fetchone()[0]


ISSUING = re.compile(r"NOTICE:  issuing (?P<command>.*)$")
ON_SERVER = re.compile(r"DETAIL:  on server \S+@[\d.]+:(?P<port>\d+)")


@dataclass
class RemoteCommands:
    """What the coordinator sent to the workers for one database, from its log
    (citus.log_remote_commands): (port, command) in order."""
    sent: list[tuple[int, str]] = field(default_factory=list)

    def shards(self, table: str) -> set[str]:
        pattern = re.compile(rf"\b{re.escape(table)}_(\d+)\b")
        return {m for _, c in self.sent for m in pattern.findall(c)}

    def prepared_on(self) -> set[int]:
        return {port for port, c in self.sent if c.startswith("PREPARE TRANSACTION")}

    def nodes(self) -> set[int]:
        return {port for port, _ in self.sent}


@contextmanager
def remote_commands(citus: CitusRun, settings):
    """An app whose connections log every command the coordinator sends to a worker; yields
    (app, RemoteCommands) filled in when the block ends. The setting is the database's, so
    only connections made inside the block (the fresh app's pool) have it."""
    database = citus.database
    log = citus.cluster.coordinator.log
    with psycopg.connect(citus.cluster.url(), autocommit=True) as admin:
        # Citus reports each remote command as a NOTICE: to the client, and to the log once
        # log_min_messages lets notices through.
        for setting in ("citus.log_remote_commands = on", "log_min_messages = notice"):
            admin.execute(sql.SQL("ALTER DATABASE {} SET " + setting)
                          .format(sql.Identifier(database)))
    start = log.stat().st_size
    application = create_app(settings)
    application.config["TESTING"] = True
    found = RemoteCommands()
    try:
        yield application, found
    finally:
        services_of(application).db.close()
        services_of(application).guards.close()
        services_of(application).reads.close()
        with psycopg.connect(citus.cluster.url(), autocommit=True) as admin:
            for setting in ("citus.log_remote_commands", "log_min_messages"):
                admin.execute(sql.SQL("ALTER DATABASE {} RESET " + setting)
                              .format(sql.Identifier(database)))
    with open(log, errors="replace") as f:
        f.seek(start)
        lines = f.read().splitlines()
    for n, line in enumerate(lines):
        m = ISSUING.search(line)
        if m and f" {database} " in line and n + 1 < len(lines):
            port = ON_SERVER.search(lines[n + 1])
            if port:
                found.sent.append((int(port["port"]), m["command"]))
