"""The operators' CLI of contract section 9: `flask --app app db|catalog|keys|distribution ...`,
and `citus distribute` (docs/operations.md 6.4)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import click
import psycopg
from psycopg.rows import dict_row
from flask import Flask, current_app
from flask.cli import AppGroup

from connectivity.ari.retention import DEFAULT_RETENTION_DAYS, prune_batch_items
from connectivity.availability.changes_retention import MIN_RETENTION_DAYS, prune_changes
from connectivity.auth.credentials import SigningVault
from connectivity.auth.keycache import KeyStateNotAnnounced
from connectivity.auth.scopes import PRESETS, SCOPES
from connectivity.store.queries import queries
from connectivity.reservations.reconciliation import (UnknownPartner, list_reconciliation,
                                           resolve_reconciliation)
from connectivity.operator.citus import DEFAULT_SHARD_COUNT, DistributionBusy, citus_version, distribute
from connectivity.operator.catalog import CatalogError, load_catalog, parse_catalog
from connectivity.operator.demo_ari import DEFAULT_DAYS, MAX_DAYS, seed_demo_ari
from connectivity.operator.keys import DEFAULT_RATE_LIMIT_PER_MINUTE, KeyIssueError, issue_key, list_keys, revoke_key
from connectivity.operator.migrations import MigrationError, upgrade


def _db():
    return current_app.extensions["connectivity.db"]


def _settings():
    return current_app.extensions["connectivity.settings"]


db_cli = AppGroup("db", help="Database schema.")
catalog_cli = AppGroup("catalog", help="Properties, partners, mappings and FX rates.")
keys_cli = AppGroup("keys", help="Partner API keys.")
distribution_cli = AppGroup("distribution", help="Pause or resume a partner's distribution.")
ari_cli = AppGroup("ari", help="Accepted ARI batches.")
changes_cli = AppGroup("changes", help="The change feed (GET /availability/changes).")
citus_cli = AppGroup("citus", help="Placing the tables on a Citus cluster.")
reconciliation_cli = AppGroup("reconciliation",
                              help="Pushed reservations that disagree with the service.")


@db_cli.command("upgrade")
def db_upgrade():
    """Apply pending migrations of sql/migrations, in order, once each."""
    try:
        applied = upgrade(_settings().database_url,
                          direct_url=_settings().database_direct_url)
    except MigrationError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"applied {len(applied)} migration(s)" + (f": {', '.join(applied)}" if applied else ""))


@catalog_cli.command("load")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def catalog_load(file: Path):
    """Upsert the catalogue FILE.json (idempotent; all or nothing)."""
    try:
        catalog = parse_catalog(file.read_text(encoding="utf-8"))
        counts = _db().run(load_catalog, catalog)
    except KeyStateNotAnnounced as exc:
        raise click.ClickException(f"catalogue loaded, but {exc}") from None
    except CatalogError as exc:
        lines = "\n".join(f"  {path}: {'; '.join(msgs)}" for path, msgs in exc.fields.items())
        raise click.ClickException(f"catalogue rejected, nothing was changed:\n{lines}") from None
    except (psycopg.IntegrityError, psycopg.DataError) as exc:
        # The schema should have caught it; the database's constraints are the last word.
        raise click.ClickException("catalogue rejected by a database constraint, nothing was "
                                   f"changed: {exc.diag.message_primary}") from None
    click.echo("catalogue loaded: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


@catalog_cli.command("demo-ari")
@click.option("--days", type=click.IntRange(1, MAX_DAYS), default=DEFAULT_DAYS, show_default=True,
              help="Days from today (in each property's timezone) to fill.")
@click.option("--property", "property_codes", multiple=True,
              help="Only this sandbox property; repeatable (default: every sandbox property).")
def catalog_demo_ari(days, property_codes):
    """Fill sandbox properties with demo ARI where nothing is stored yet (never production)."""
    counts = _db().run(seed_demo_ari, datetime.now(timezone.utc), days, tuple(property_codes))
    click.echo("demo ARI written: " + ", ".join(f"{v} {k} rows" for k, v in counts.items()))


def _timestamp(_ctx, _param, value):
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter("an ISO 8601 timestamp, e.g. 2027-01-31T00:00:00+00:00") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


@keys_cli.command("issue")
@click.option("--partner", "partner_code", required=True)
@click.option("--name", required=True)
@click.option("--environment", required=True, type=click.Choice(["sandbox", "production"]))
@click.option("--preset", required=True, type=click.Choice(list(PRESETS)))
@click.option("--scope", "extra_scopes", multiple=True, type=click.Choice(SCOPES),
              help="Adds to the preset's scopes; repeatable.")
@click.option("--signed/--unsigned", default=None,
              help="Whether requests must be signed (default: signed for push, else unsigned).")
@click.option("--rate-limit", type=int, default=DEFAULT_RATE_LIMIT_PER_MINUTE, show_default=True,
              help="Requests per minute.")
@click.option("--expires-at", callback=_timestamp, help="ISO 8601 timestamp (UTC if no offset).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def keys_issue(partner_code, name, environment, preset, extra_scopes, signed, rate_limit,
               expires_at, as_json):
    """Issue a key. Its token is printed once and cannot be shown again."""
    vault = SigningVault(_settings().secret_key)
    try:
        issued = _db().run(issue_key, vault, partner_code=partner_code, name=name,
                           environment=environment, preset=preset, extra_scopes=extra_scopes,
                           signed=signed, rate_limit=rate_limit, expires_at=expires_at)
    except KeyIssueError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(issued.public()))
        return
    click.echo(f"key_id:             {issued.key_id}\n"
               f"environment:        {issued.environment}\n"
               f"scopes:             {' '.join(issued.scopes) or '(none)'}\n"
               f"requires_signature: {str(issued.requires_signature).lower()}\n"
               f"rate_limit:         {issued.rate_limit_per_minute}/min\n"
               f"expires_at:         {issued.expires_at.isoformat() if issued.expires_at else 'never'}\n"
               f"token:              {issued.token}\n"
               "The token is shown this once; the service keeps no copy it could show again.")


@keys_cli.command("revoke")
@click.argument("key_id")
def keys_revoke(key_id):
    """Revoke a key; it is refused from the next request on."""
    try:
        row = _db().run(revoke_key, key_id)
    except KeyStateNotAnnounced as exc:
        raise click.ClickException(
            f"{key_id} is revoked in the database, but {exc}") from None
    if row is None:
        raise click.ClickException(f"no key {key_id}")
    click.echo(f"revoked {row['key_id']} at {row['revoked_at'].isoformat()}")


@keys_cli.command("list")
@click.option("--partner", "partner_code", required=True)
@click.option("--json", "as_json", is_flag=True)
def keys_list(partner_code, as_json):
    """List a partner's keys (never their secrets)."""
    rows = _db().run(list_keys, partner_code)
    if as_json:
        click.echo(json.dumps(rows, default=lambda v: v.isoformat()))
        return
    for r in rows:
        state = "revoked" if r["revoked_at"] else "active"
        click.echo(f"{r['key_id']}  {r['environment']:<10} {state:<8} "
                   f"signed={str(r['requires_signature']).lower():<5} "
                   f"{r['rate_limit_per_minute']}/min  {r['name']}  [{' '.join(r['scopes'])}]")


def _set_distribution(partner_code: str, property_code: str, active: bool) -> None:
    # Not announced to the key caches: a key's row holds nothing a pause changes (paused
    # mappings still count for no_mapped_properties, contract section 10).
    def change(conn):
        row = queries().operator.set_distribution(
            conn, partner_code=partner_code, property_code=property_code, active=active)
        if row is not None and row["changed"]:
            queries().operator.record_distribution_change(
                conn, property_id=row["property_id"], partner_id=row["partner_id"])
        return row
    row = _db().run(change)
    if row is None:
        raise click.ClickException(
            f"partner {partner_code} has no mapping of property {property_code}")
    click.echo(f"{'resumed' if active else 'paused'}: partner {partner_code}, property "
               f"{property_code} (hotel code {row['hotel_code']})")


@distribution_cli.command("pause")
@click.option("--partner", "partner_code", required=True)
@click.option("--property", "property_code", required=True)
def distribution_pause(partner_code, property_code):
    """Hide a property from the partner's discovery and selling."""
    _set_distribution(partner_code, property_code, False)


@distribution_cli.command("resume")
@click.option("--partner", "partner_code", required=True)
@click.option("--property", "property_code", required=True)
def distribution_resume(partner_code, property_code):
    """Show a paused property to the partner again."""
    _set_distribution(partner_code, property_code, True)


@reconciliation_cli.command("list")
@click.option("--partner", "partner_code", help="Only this partner's items.")
@click.option("--unresolved", is_flag=True, help="Only items not resolved yet.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
def reconciliation_list(partner_code, unresolved, as_json):
    """List reconciliation items, oldest first."""
    try:
        rows = _db().run(list_reconciliation, partner_code, unresolved)
    except UnknownPartner as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps([{k: r[k] for k in ("id", "partner_code", "reference", "code",
                                                  "details", "created_at", "resolved_at")}
                               for r in rows], default=lambda v: v.isoformat()))
        return
    for r in rows:
        state = f"resolved {r['resolved_at'].isoformat()}" if r["resolved_at"] else "open"
        click.echo(f"{r['id']}  {r['partner_code']}  {r['environment']}  {r['reference']}  "
                   f"{r['code']}  {state}\n    {r['message']}  {json.dumps(r['details'])}")


@reconciliation_cli.command("resolve")
@click.argument("item_id", type=click.IntRange(1, 2**63 - 1))
def reconciliation_resolve(item_id):
    """Mark reconciliation item ITEM_ID resolved."""
    outcome, row = _db().run(resolve_reconciliation, item_id)
    if outcome == "missing":
        raise click.ClickException(f"no reconciliation item {item_id}")
    if outcome == "already":
        click.echo(f"item {item_id} was already resolved at {row['resolved_at'].isoformat()}")
        return
    click.echo(f"resolved item {item_id} at {row['resolved_at'].isoformat()}")


@ari_cli.command("prune-items")
@click.option("--older-than-days", "retention_days", type=click.IntRange(1, 36500),
              default=DEFAULT_RETENTION_DAYS, show_default=True,
              help="Prune batches applied more than this many days ago.")
def ari_prune_items(retention_days):
    """Drop the items of old finished ARI batches; every batch keeps its outcome."""
    pruned = prune_batch_items(_db(), retention_days)
    click.echo(f"pruned the items of {pruned} batch(es) applied more than {retention_days} "
               "day(s) ago")


@changes_cli.command("prune")
@click.option("--days", "retention_days", type=click.IntRange(min=MIN_RETENTION_DAYS),
              default=MIN_RETENTION_DAYS, show_default=True,
              help=f"keep the changes of the last DAYS days (at least {MIN_RETENTION_DAYS})")
def changes_prune(retention_days):
    """Delete changes older than --days; cursors from before answer 410 cursor_expired."""
    pruned = prune_changes(_db(), retention_days)
    click.echo(f"pruned {pruned} change(s) older than {retention_days} day(s)")


@citus_cli.command("distribute")
@click.option("--shard-count", type=click.IntRange(1, 1024), default=DEFAULT_SHARD_COUNT,
              show_default=True, envvar="CITUS_SHARD_COUNT",
              help="Shards of each colocation group created by this run (env CITUS_SHARD_COUNT).")
def citus_distribute(shard_count):
    """Place the tables on Citus as connectivity/store/sharding.py plans (idempotent; a no-op on
    plain PostgreSQL)."""
    # Its own connection, never through a transaction pooler: the advisory lock and the
    # session setting of operator/citus.py belong to one session.
    url = _settings().database_direct_url or _settings().database_url
    with psycopg.connect(url, autocommit=True, row_factory=dict_row) as conn:
        version = citus_version(conn)
        if version is None:
            click.echo("plain PostgreSQL (no citus extension in this database): nothing to "
                       "distribute, nothing changed")
            return
        try:
            results = distribute(conn, shard_count)
        except DistributionBusy as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"Citus {version}:")
    for placement in results:
        click.echo("  " + placement.line())
    failed = [p.table for p in results if p.failed]
    if failed:
        raise click.ClickException(f"{len(failed)} table(s) cannot be placed: "
                                   f"{', '.join(failed)}; nothing was changed (all or nothing)")
    placed = sum(p.outcome == "placed" for p in results)
    click.echo(f"{placed} table(s) placed" if placed else "nothing to do: already distributed")


def register_cli(app: Flask) -> None:
    for group in (db_cli, catalog_cli, keys_cli, distribution_cli, ari_cli, changes_cli,
                  reconciliation_cli, citus_cli):
        app.cli.add_command(group)
