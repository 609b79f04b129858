"""`distribution pause` and `distribution resume`."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from connectivity.mapping.distribution import AmbiguousProperty, set_distribution
from connectivity.operator.commands.context import database, fence_reads

group = AppGroup("distribution", help="Pause or resume a partner's distribution.")

PROPERTY_HELP = ("The property: its internal code (LIS1) or the partner's hotel code for it "
                 "(ACME-LIS).")


def _set(partner_code: str, code: str, active: bool) -> None:
    try:
        row = database().run(set_distribution, partner_code, code, active)
    except AmbiguousProperty as exc:
        raise click.ClickException(f"partner {partner_code}: {exc}; nothing was changed") from None
    if row is None:
        raise click.ClickException(
            f"partner {partner_code} has no mapping of a property whose code or hotel code is "
            f"{code}")
    fence_reads(f"{'resumed' if active else 'paused'}")
    click.echo(f"{'resumed' if active else 'paused'}: partner {partner_code}, property "
               f"{row['property_code']} (hotel code {row['hotel_code']})")


@group.command("pause")
@click.option("--partner", "partner_code", required=True, help="The partner's code (acme).")
@click.option("--property", "property_code", required=True, help=PROPERTY_HELP)
def distribution_pause(partner_code, property_code):
    """Hide a property from the partner's discovery and selling."""
    _set(partner_code, property_code, False)


@group.command("resume")
@click.option("--partner", "partner_code", required=True, help="The partner's code (acme).")
@click.option("--property", "property_code", required=True, help=PROPERTY_HELP)
def distribution_resume(partner_code, property_code):
    """Show a paused property to the partner again."""
    _set(partner_code, property_code, True)
