"""`privacy purge`: guest data that expires (docs/operations.md, "Guest data that expires")."""

from __future__ import annotations

from datetime import datetime, timezone

import click
from flask.cli import AppGroup

from connectivity.operator.commands.context import database, settings
from connectivity.operator.privacy import DEFAULT_CHUNK_SIZE, purge_guest_data

group = AppGroup("privacy", help="Guests' personal data.")


@group.command("purge")
@click.option("--after-checkout-days", type=click.IntRange(min=1), default=None,
              help="Purge stays that ended more than this many days ago (UTC) "
                   "[default: PRIVACY_PURGE_AFTER_DAYS, 365].")
@click.option("--chunk-size", type=click.IntRange(1, 10_000), default=DEFAULT_CHUNK_SIZE,
              show_default=True, help="Rows per transaction.")
def privacy_purge(after_checkout_days, chunk_size):
    """Replace the guests' personal fields of bookings, pushed reservations, booking events and
    their webhook deliveries whose stay ended long enough ago; the commercial record stays.
    Safe while the service runs; running it again purges only what is newly due."""
    days = after_checkout_days or settings().privacy_purge_after_days
    report = purge_guest_data(database(), after_checkout_days=days,
                              now=datetime.now(timezone.utc), chunk_size=chunk_size)
    click.echo(f"purged the guest data of {report.bookings} booking(s) and "
               f"{report.reservations} reservation(s) of {report.hotels} hotel(s), and of "
               f"{report.events} event(s) and {report.deliveries} webhook delivery(ies), whose "
               f"stay ended before {report.cutoff.isoformat()}")
