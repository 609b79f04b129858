"""Demo ARI for the sandbox: prices, inventory, a few closed dates and restrictions for the next
`days` days of every sandbox property (or the ones named), so that search, rates, quote and book
work straight after `make run`. The values themselves are chosen in
sql/queries/operator/seed_demo_ari.sql; this module owns the transaction and the rules on its
input."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from connectivity.store.database import announces
from connectivity.store.read_fence import READS_CHANGED
from connectivity.store.queries import queries

if TYPE_CHECKING:
    import psycopg

DEFAULT_DAYS = 365
MAX_DAYS = 730  # the ARI push accepts dates up to two years ahead; the demo stays inside that


@announces(READS_CHANGED)  # search and rates reflect it once it exits 0
def seed_demo_ari(conn: psycopg.Connection, now: datetime, days: int = DEFAULT_DAYS,
                  property_codes: tuple[str, ...] = ()) -> dict[str, int]:
    """Write the demo values where nothing is stored yet; returns the rows written per table.
    Production properties are never touched, whatever the codes given."""
    if not 1 <= days <= MAX_DAYS:
        raise ValueError(f"days must be between 1 and {MAX_DAYS}")
    q = queries().operator
    codes = list(property_codes)
    return {
        "room_type_days": q.seed_demo_room_type_days(conn, now=now, days=days,
                                                     property_codes=codes),
        "rate_plan_days": q.seed_demo_rate_plan_days(conn, now=now, days=days,
                                                     property_codes=codes),
    }
