"""Pausing and resuming a partner's distribution of one mapped property (contract section 9): a
paused property is hidden from that partner's discovery and selling, its mapping kept as it is.
The operators' `distribution pause|resume` calls it."""

from __future__ import annotations

from connectivity.events import log
from connectivity.store.queries import queries


# Not announced to the key caches: a key's row holds nothing a pause changes (paused mappings
# still count for no_mapped_properties, contract section 10).
def set_distribution(conn, partner_code: str, property_code: str, active: bool) -> dict | None:
    """Pause (`active` False) or resume the partner's mapping of the property; the mapping's
    row (`hotel_code`, ...), or None when the partner has no mapping of that property. Only a
    change of state is recorded, in the change feed and as a mapping.paused / mapping.resumed
    event, for that partner alone."""
    row = queries().mapping.set_distribution(
        conn, partner_code=partner_code, property_code=property_code, active=active)
    if row is not None and row["changed"]:
        queries().mapping.record_distribution_change(
            conn, property_id=row["property_id"], partner_id=row["partner_id"])
        log.record(conn, property_id=row["property_id"], partner_id=row["partner_id"],
                   environment=row["environment"],
                   type="mapping.resumed" if active else "mapping.paused",
                   data={"hotel_code": row["hotel_code"]})
    return row
