"""`hotel-bookings overdue`."""

from __future__ import annotations

import datetime as dt
import json

import click
from flask.cli import AppGroup

from connectivity.bookings.overdue import overdue_hotel_bookings
from connectivity.operator.commands.context import database, settings

group = AppGroup("hotel-bookings", help="Bookings made on hotels, as their receivers (channel "
                                        "managers) acknowledge them.")

FIELDS = ("partner", "environment", "hotel_code", "confirmation_number", "status", "booked_by",
          "created_at", "cancelled_at", "waiting_since", "waiting_seconds")


@group.command("overdue")
@click.option("--partner", "partner_code", help="Only the hotel bookings this partner receives.")
@click.option("--older-than", "older_than", type=click.IntRange(min=0),
              help="Waiting for more than SECONDS [default: HOTEL_ACK_DEADLINE_SECONDS, 1800].")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON array.")
def hotel_bookings_overdue(partner_code, older_than, as_json):
    """List the hotel bookings whose current status their receiver has not acknowledged for
    longer than --older-than, the longest waiting first."""
    seconds = settings().hotel_ack_deadline_seconds if older_than is None else older_than
    try:
        rows = database().run(overdue_hotel_bookings, dt.datetime.now(dt.timezone.utc), seconds,
                              partner_code)
    except LookupError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps([{k: r[k] for k in FIELDS} for r in rows],
                              default=lambda v: v.isoformat()))
        return
    click.echo(f"{len(rows)} hotel booking(s) unacknowledged for more than {seconds} s")
    for r in rows:
        click.echo(f"{r['confirmation_number']}  {r['partner']}  {r['environment']}  "
                   f"{r['hotel_code']}  {r['status']}  waiting {r['waiting_seconds']} s since "
                   f"{r['waiting_since'].isoformat()}  (booked by {r['booked_by']})")
