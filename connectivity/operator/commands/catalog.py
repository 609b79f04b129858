"""`catalog load`, `catalog list` and `catalog demo-ari`."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import click
from flask.cli import AppGroup

from connectivity.auth.keycache import KeyStateNotAnnounced
from connectivity.operator.catalog import (REFUSED_BY_CONSTRAINT, CatalogError, load_catalog,
                                           parse_catalog)
from connectivity.operator.catalog_listing import list_catalog
from connectivity.operator.commands.context import database, fence_reads
from connectivity.operator.demo_ari import DEFAULT_DAYS, MAX_DAYS, seed_demo_ari

group = AppGroup("catalog", help="Properties, partners, mappings and FX rates.")


@group.command("load")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def catalog_load(file: Path):
    """Upsert the catalogue FILE.json (idempotent; all or nothing)."""
    try:
        catalog = parse_catalog(file.read_text(encoding="utf-8"))
        counts = database().run(load_catalog, catalog)
    except KeyStateNotAnnounced as exc:
        raise click.ClickException(f"catalogue loaded, but {exc}") from None
    except CatalogError as exc:
        lines = "\n".join(f"  {path}: {'; '.join(msgs)}" for path, msgs in exc.fields.items())
        raise click.ClickException(f"catalogue rejected, nothing was changed:\n{lines}") from None
    except REFUSED_BY_CONSTRAINT as exc:
        # The schema should have caught it; the database's constraints are the last word.
        raise click.ClickException("catalogue rejected by a database constraint, nothing was "
                                   f"changed: {exc.diag.message_primary}") from None
    fence_reads("catalogue loaded")
    click.echo("catalogue loaded: " + ", ".join(f"{v} {k}" for k, v in counts.items()))


@group.command("list")
@click.option("--json", "as_json", is_flag=True,
              help='Print one JSON object: {"partners": [...], "properties": [...], '
                   '"mappings": [...]} (a mapping with its state and receives_bookings).')
def catalog_list(as_json):
    """List partners (with their active keys), properties and mappings (active or paused, and
    whether each receives its hotel's bookings)."""
    listed = database().run(list_catalog)
    if as_json:
        click.echo(json.dumps(listed))
        return
    click.echo(f"partners ({len(listed['partners'])}):")
    for p in listed["partners"]:
        click.echo(f"  {p['code']:<16} {p['active_keys']} active key(s) of {p['keys']}  "
                   f"{p['name']}")
    click.echo(f"properties ({len(listed['properties'])}):")
    for p in listed["properties"]:
        click.echo(f"  {p['code']:<16} {p['environment']:<10} {p['country']} {p['timezone']} "
                   f"{p['currency']}  {p['room_types']} room type(s), {p['rate_plans']} rate "
                   f"plan(s)  {p['name']}")
    click.echo(f"mappings ({len(listed['mappings'])}):")
    for m in listed["mappings"]:
        click.echo(f"  {m['partner_code']:<16} {m['property_code']:<12} -> {m['hotel_code']:<16} "
                   f"{m['environment']:<10} {m['state']:<6}  {m['room_types']} room type(s), "
                   f"{m['rate_plans']} rate plan(s)"
                   + ("  receives bookings" if m["receives_bookings"] else ""))


@group.command("demo-ari")
@click.option("--days", type=click.IntRange(1, MAX_DAYS), default=DEFAULT_DAYS, show_default=True,
              help="Days from today (in each property's timezone) to fill.")
@click.option("--property", "property_codes", multiple=True,
              help="Only this sandbox property; repeatable (default: every sandbox property).")
def catalog_demo_ari(days, property_codes):
    """Fill sandbox properties with demo ARI where nothing is stored yet (never production)."""
    counts = database().run(seed_demo_ari, datetime.now(timezone.utc), days,
                            tuple(property_codes))
    click.echo("demo ARI written: " + ", ".join(f"{v} {k} rows" for k, v in counts.items()))
