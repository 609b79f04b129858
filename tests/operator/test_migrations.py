"""`db upgrade` (contract section 9) and the constraints the foundation migration guarantees."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import psycopg
import pytest
from psycopg import errors

from tests.operator.conftest import output_of
from connectivity.web import services
from connectivity.web.services import services_of

MIGRATIONS = Path(__file__).resolve().parents[2] / "sql" / "migrations"


def test_a_second_upgrade_applies_nothing(cli, pg):
    # The session fixture already upgraded this database; the command must find nothing to do.
    before = pg.execute("SELECT version, applied_at FROM schema_migrations ORDER BY 1").fetchall()
    result = cli("db", "upgrade")
    text = output_of(result)
    assert result.exit_code == 0, text
    assert re.search(r"\bapplied 0\b", text), text
    again = cli("db", "upgrade")
    assert again.exit_code == 0 and re.search(r"\bapplied 0\b", again.output), again.output
    assert pg.execute("SELECT version, applied_at FROM schema_migrations ORDER BY 1"
                      ).fetchall() == before


def test_the_ledger_holds_one_row_per_migration_file(cli, pg):
    assert cli("db", "upgrade").exit_code == 0
    files = sorted(p.stem for p in MIGRATIONS.glob("*.sql"))
    assert files, "no migration files found"
    rows = [r[0] for r in pg.execute("SELECT version FROM schema_migrations ORDER BY version")]
    assert len(rows) == len(files)
    assert [f for f in files if not any(f in r or r in f for r in rows)] == []
    assert len(set(rows)) == len(rows)


def test_upgrade_on_an_empty_database_applies_every_file_once(empty_database, app, cli):
    """A brand-new database: the first upgrade applies each file, the second none."""
    from connectivity.settings import Settings

    fresh_url = empty_database
    running = services_of(app)
    settings = running.settings
    try:
        services.register(app, dataclasses.replace(running, settings=Settings(
            database_url=fresh_url, redis_url=settings.redis_url, secret_key=settings.secret_key,
            redis_prefix=settings.redis_prefix)))
        first = cli("db", "upgrade")
        second = cli("db", "upgrade")
    finally:
        services.register(app, running)
    files = sorted(p.stem for p in MIGRATIONS.glob("*.sql"))
    assert first.exit_code == 0, output_of(first)
    assert re.search(rf"\bapplied {len(files)}\b", first.output), first.output
    for f in files:
        assert f in first.output
    assert re.search(r"\bapplied 0\b", second.output), second.output
    with psycopg.connect(fresh_url) as conn:
        assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone() == (len(files),)


# ------------------------------------------------------------------------ constraints


@pytest.fixture
def partner_id(pg):
    return pg.execute("INSERT INTO partners (code, name) VALUES ('acme', 'Acme') RETURNING id"
                      ).fetchone()[0]


def insert_key(pg, partner_id, key_id, environment):
    pg.execute(
        "INSERT INTO api_keys (key_id, partner_id, name, environment, secret_hash, "
        "signing_secret, scopes, requires_signature, rate_limit_per_minute) "
        "VALUES (%s, %s, 'k', %s, %s, %s, '{}', false, 60)",
        (key_id, partner_id, environment, b"\x01" * 32, b"sealed"))


def insert_property(pg, code, environment):
    return pg.execute(
        "INSERT INTO properties (code, name, environment, country, timezone, currency, "
        "max_child_age) VALUES (%s, %s, %s, 'PT', 'Europe/Lisbon', 'EUR', 11) RETURNING id",
        (code, code, environment)).fetchone()[0]


def insert_mapping(pg, partner_id, property_id, environment, hotel_code):
    pg.execute(
        "INSERT INTO partner_properties (partner_id, property_id, environment, hotel_code, "
        "distribution_active) VALUES (%s, %s, %s, %s, true)",
        (partner_id, property_id, environment, hotel_code))


def test_keys_whose_prefix_matches_the_environment_are_stored(pg, partner_id):
    insert_key(pg, partner_id, "sbx_" + "a" * 16, "sandbox")
    insert_key(pg, partner_id, "live_" + "b" * 16, "production")
    assert pg.execute("SELECT count(*) FROM api_keys").fetchone() == (2,)


@pytest.mark.parametrize("key_id, environment", [
    ("live_" + "a" * 16, "sandbox"),
    ("sbx_" + "a" * 16, "production"),
])
def test_a_key_whose_prefix_disagrees_with_its_environment_is_refused(pg, partner_id, key_id,
                                                                       environment):
    with pytest.raises(errors.CheckViolation):
        insert_key(pg, partner_id, key_id, environment)
    assert pg.execute("SELECT count(*) FROM api_keys").fetchone() == (0,)


def test_a_mapping_in_its_propertys_environment_is_stored(pg, partner_id):
    prop = insert_property(pg, "LIS1", "sandbox")
    insert_mapping(pg, partner_id, prop, "sandbox", "ACME-LIS")
    assert pg.execute("SELECT count(*) FROM partner_properties").fetchone() == (1,)


@pytest.mark.parametrize("prop_env, mapping_env", [("sandbox", "production"),
                                                   ("production", "sandbox")])
def test_a_mapping_in_another_environment_than_its_property_is_refused(pg, partner_id, prop_env,
                                                                        mapping_env):
    prop = insert_property(pg, "LIS1", prop_env)
    with pytest.raises(errors.ForeignKeyViolation):
        insert_mapping(pg, partner_id, prop, mapping_env, "ACME-LIS")
    assert pg.execute("SELECT count(*) FROM partner_properties").fetchone() == (0,)


def test_a_duplicate_hotel_code_of_one_partner_in_one_environment_is_refused(pg, partner_id):
    lis = insert_property(pg, "LIS1", "sandbox")
    opo = insert_property(pg, "OPO1", "sandbox")
    insert_mapping(pg, partner_id, lis, "sandbox", "ACME-HOTEL")
    with pytest.raises(errors.UniqueViolation):
        insert_mapping(pg, partner_id, opo, "sandbox", "ACME-HOTEL")
    assert pg.execute("SELECT count(*) FROM partner_properties").fetchone() == (1,)


def test_the_same_hotel_code_is_allowed_across_environments_and_partners(pg, partner_id):
    other = pg.execute("INSERT INTO partners (code, name) VALUES ('globex', 'Globex') "
                       "RETURNING id").fetchone()[0]
    lis = insert_property(pg, "LIS1", "sandbox")
    opo = insert_property(pg, "OPO1", "production")
    insert_mapping(pg, partner_id, lis, "sandbox", "HOTEL")
    insert_mapping(pg, partner_id, opo, "production", "HOTEL")
    insert_mapping(pg, other, lis, "sandbox", "HOTEL")
    assert pg.execute("SELECT count(*) FROM partner_properties").fetchone() == (3,)
