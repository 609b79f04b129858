"""DATABASE_READ_URL at start-up: malformed stops it, unreachable does not (reads go to the
primary, with a warning); and the lag check's pace."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

import pytest

from app import create_app
from devtools.topology import free_port
from connectivity.web.services import services_of
from connectivity.logs import configure_logging
from connectivity.telemetry import REGISTRY
from connectivity.store.replica import LagMonitor
from connectivity.settings import Settings, SettingsError

API = "/api/connectivity/v1"
BASE = {"DATABASE_URL": "postgresql://pcs@db:5432/pcs", "REDIS_URL": "redis://r:6379/0",
        "SECRET_KEY": "s" * 40}


@pytest.mark.parametrize("value, says", [
    ("postgresql://[::1", "not a valid PostgreSQL connection URL"),
    ("replica.internal:5432", "not a valid PostgreSQL connection URL"),
    ("postgresql://pcs@replica:fivefour/pcs", "port that is not a number"),
])
def test_a_malformed_read_url_stops_start_up_saying_which_setting(value, says):
    with pytest.raises(SettingsError, match=says) as caught:
        Settings.from_env({**BASE, "DATABASE_READ_URL": value})
    assert "DATABASE_READ_URL" in str(caught.value)


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_a_max_lag_that_is_not_a_positive_number_stops_start_up(value):
    with pytest.raises(SettingsError):
        Settings.from_env({**BASE, "DATABASE_READ_URL": "postgresql://pcs@replica/pcs",
                           "READ_MAX_LAG_SECONDS": value})


def test_read_settings_are_read_with_their_defaults():
    settings = Settings.from_env({**BASE, "DATABASE_READ_URL": "postgresql://pcs@replica/pcs"})
    assert settings.database_read_url == "postgresql://pcs@replica/pcs"
    assert settings.read_max_lag_seconds == 5
    assert Settings.from_env(BASE).database_read_url is None


def test_an_unreachable_replica_at_start_sends_reads_to_the_primary_with_a_warning(
        settings, catalog, issue, capsys):
    nowhere = f"postgresql://postgres@127.0.0.1:{free_port()}/connectivity"
    # Search by its statement alone, one read a request (the read model's own reads go through
    # the same target: tests/availability/test_search_model.py).
    application = create_app(dataclasses.replace(settings, database_read_url=nowhere,
                                                 search_read_model=False))
    try:
        headers = {"Authorization": f"Bearer {issue('pull').token}"}
        check_in = dt.date.today() + dt.timedelta(days=5)
        primary = REGISTRY.get_sample_value("pcs_db_reads_total", {"target": "primary"}) or 0
        client = application.test_client()
        for _ in range(3):
            answer = client.post(f"{API}/availability/search", json={
                "hotel_codes": ["ACME-LIS"], "check_in": check_in.isoformat(),
                "check_out": (check_in + dt.timedelta(days=1)).isoformat(), "rooms": 1,
                "occupancy": [{"adults": 2}]}, headers=headers)
            assert answer.status_code == 200, answer.json
        assert client.get(f"{API}/mapping/hotels", headers=headers).status_code == 200
        assert REGISTRY.get_sample_value("pcs_db_reads_total", {"target": "primary"}) == \
            primary + 4
        events = [json.loads(line) for line in capsys.readouterr().out.splitlines()
                  if line.startswith("{")]
        warned = [e for e in events if e["event"] == "read_replica_unreachable"]
        assert len(warned) == 1 and warned[0]["level"] == "warning"
        assert warned[0]["action"] == "reads go to the primary"
    finally:
        for name in ("reads", "db", "guards"):
            getattr(services_of(application), name).close()


def test_the_lag_is_checked_at_most_once_per_interval(services, monkeypatch):
    """Many reads within a second cost one lag query; the next second, one more."""
    from connectivity.store.queries import queries
    reads = queries().store
    checks = []
    real = reads.replica_lag_seconds

    def counted(conn):
        checks.append(1)
        return real(conn)
    monkeypatch.setattr(type(reads), "replica_lag_seconds", staticmethod(counted),
                        raising=False)
    configure_logging("INFO")  # onto this test's stdout, not an earlier test's closed one
    now = [100.0]
    # The test database is no replica: a server not in recovery is never behind.
    monitor = LagMonitor(services.database_url, max_lag_seconds=5, clock=lambda: now[0])
    try:
        assert all(monitor.usable() for _ in range(50))
        assert len(checks) == 1
        now[0] += 0.5
        assert monitor.usable() and len(checks) == 1
        now[0] += 0.6
        assert all(monitor.usable() for _ in range(50))
        assert len(checks) == 2 and monitor.lag_seconds == 0
    finally:
        monitor.close()
