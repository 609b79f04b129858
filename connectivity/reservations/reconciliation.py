"""Reconciliation items: recorded with the delivery that raised them, listed and resolved by
the operator (`flask --app app reconciliation list|resolve`)."""

from __future__ import annotations

from psycopg.types.json import Jsonb

from connectivity.auth.authenticate import Caller
from connectivity.events import log
from connectivity.store.queries import queries
from connectivity.reservations.findings import Finding


def record_reconciliation(conn, caller: Caller, reference: str, row: dict, version: int,
                          findings: list[Finding]) -> None:
    """`row`: the reservation (`id`, `property_id`, `mapping_id`). Each item is also a
    reservation.flagged event for the partner, in this transaction, on the reservation's
    shard."""
    if not findings:
        return
    q = queries().reservations
    q.record_reconciliation(conn, [
        {"property_id": row["property_id"], "reservation_id": row["id"], "version": version,
         "code": f.code, "message": f.message, "details": Jsonb(f.details or {})}
        for f in findings])
    hotel_code = q.mapping_hotel_code(conn, mapping_id=row["mapping_id"])
    for f in findings:
        log.record(conn, property_id=row["property_id"], partner_id=caller.partner_id,
                   environment=caller.environment, type="reservation.flagged",
                   data={"partner_reference": reference, "hotel_code": hotel_code,
                         "code": f.code, "message": f.message})


def reconciliation_of(conn, property_id: int, reservation_id: int, version: int) -> list[dict]:
    return queries().reservations.reconciliation_of_version(
        conn, property_id=property_id, reservation_id=reservation_id, version=version)


class UnknownPartner(LookupError):
    pass


def list_reconciliation(conn, partner_code: str | None = None,
                        unresolved_only: bool = False) -> list[dict]:
    if partner_code is not None and queries().operator.find_partner(conn, code=partner_code) is None:
        raise UnknownPartner(f"unknown partner {partner_code!r}")
    return queries().reservations.list_reconciliation(
        conn, partner_code=partner_code, unresolved_only=unresolved_only)


def resolve_reconciliation(conn, item_id: int) -> tuple[str, dict | None]:
    """("resolved", row) now, ("already", row) when it was resolved before, ("missing", None)."""
    row = queries().reservations.resolve_reconciliation(conn, item_id=item_id)
    if row is not None:
        return "resolved", row
    row = queries().reservations.find_reconciliation(conn, item_id=item_id)
    return ("already", row) if row is not None else ("missing", None)
