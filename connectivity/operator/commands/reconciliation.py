"""`reconciliation list` and `reconciliation resolve`."""

from __future__ import annotations

import json

import click
from flask.cli import AppGroup

from connectivity.operator.commands.context import database
from connectivity.reservations.reconciliation import (UnknownPartner, list_reconciliation,
                                                      resolve_reconciliation)

group = AppGroup("reconciliation", help="Pushed reservations that disagree with the service.")


@group.command("list")
@click.option("--partner", "partner_code", help="Only this partner's items.")
@click.option("--unresolved", is_flag=True, help="Only items not resolved yet.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
def reconciliation_list(partner_code, unresolved, as_json):
    """List reconciliation items, oldest first."""
    try:
        rows = database().run(list_reconciliation, partner_code, unresolved)
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


@group.command("resolve")
@click.argument("item_id", type=click.IntRange(1, 2**63 - 1))
def reconciliation_resolve(item_id):
    """Mark reconciliation item ITEM_ID resolved."""
    outcome, row = database().run(resolve_reconciliation, item_id)
    if outcome == "missing":
        raise click.ClickException(f"no reconciliation item {item_id}")
    if outcome == "already":
        click.echo(f"item {item_id} was already resolved at {row['resolved_at'].isoformat()}")
        return
    click.echo(f"resolved item {item_id} at {row['resolved_at'].isoformat()}")
