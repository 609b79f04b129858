"""GET /reservations/{reference} (contract 12.1): one pushed reservation of the caller, with its
versions and reconciliation items, read through its claim on its own shard."""

from __future__ import annotations

from connectivity.auth.authenticate import Caller
from connectivity.store.claimed import claimed_row
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.web.errors import NotFound, ServiceUnavailable
from connectivity.reservations.service import ORPHAN
from connectivity.reservations.state import shown


def read_reservation(db: Database, caller: Caller, reference: str) -> dict:
    q = queries().reservations
    keys = {"partner_id": caller.partner_id, "environment": caller.environment,
            "partner_reference": reference}
    with db.connection() as conn:
        if q.find_reservation_claim(conn, **keys) is None:
            raise NotFound(f"no reservation {reference!r} for this partner")
        # A claim proves its row exists: not visible yet (Citus), or moved with its orphan to
        # its hotel meanwhile (the claim then names the new place), so both are read again.
        claim = claimed_row(lambda: _where(conn, keys))
    if claim is None:
        raise ServiceUnavailable(f"reservation {reference!r} is being stored; retry shortly",
                                 retry_after=1)
    with db.snapshot() as conn:  # the reservation, its versions and items at one moment
        view = q.reservation_view(conn, **claim)
        if view is None:  # moved since: read where the claim now says
            return read_reservation(db, caller, reference)
        versions = q.reservation_versions(conn, **claim)
        items = q.reservation_reconciliation(conn, **claim)
    return {"reservation": {**shown(view), "orphan": any(i["code"] == ORPHAN for i in items)},
            "versions": versions, "reconciliation": items}


def _where(conn, keys: dict) -> dict | None:
    claim = queries().reservations.find_reservation_claim(conn, **keys)
    if queries().reservations.reservation_view(conn, **claim) is None:
        return None
    return claim
