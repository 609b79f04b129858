"""`distribution pause` and `distribution resume`."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from connectivity.mapping.distribution import set_distribution
from connectivity.operator.commands.context import database

group = AppGroup("distribution", help="Pause or resume a partner's distribution.")


def _set(partner_code: str, property_code: str, active: bool) -> None:
    row = database().run(set_distribution, partner_code, property_code, active)
    if row is None:
        raise click.ClickException(
            f"partner {partner_code} has no mapping of property {property_code}")
    click.echo(f"{'resumed' if active else 'paused'}: partner {partner_code}, property "
               f"{property_code} (hotel code {row['hotel_code']})")


@group.command("pause")
@click.option("--partner", "partner_code", required=True)
@click.option("--property", "property_code", required=True)
def distribution_pause(partner_code, property_code):
    """Hide a property from the partner's discovery and selling."""
    _set(partner_code, property_code, False)


@group.command("resume")
@click.option("--partner", "partner_code", required=True)
@click.option("--property", "property_code", required=True)
def distribution_resume(partner_code, property_code):
    """Show a paused property to the partner again."""
    _set(partner_code, property_code, True)
