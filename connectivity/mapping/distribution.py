"""Pausing and resuming a partner's distribution of one mapped property (contract section 9): a
paused property is hidden from that partner's discovery and selling, its mapping kept as it is.
The operators' `distribution pause|resume` calls it."""

from __future__ import annotations

from connectivity.store.database import announces
from connectivity.store.read_fence import READS_CHANGED
from connectivity.events import log
from connectivity.store.queries import queries


class AmbiguousProperty(LookupError):
    """The code names more than one of the partner's mappings (a property code that is also
    another mapping's hotel code, or a hotel code used in both environments)."""

    def __init__(self, code: str, mappings: list[dict]):
        named = ", ".join(f"property {m['property_code']} (hotel code {m['hotel_code']}, "
                          f"{m['environment']})" for m in mappings)
        super().__init__(f"{code} names more than one mapping: {named}; give the property code")
        self.mappings = mappings


# Not announced to the key caches: a key's row holds nothing a pause changes (paused mappings
# still count for no_mapped_properties, contract section 10).
@announces(READS_CHANGED)  # reads reflect it once the command exits 0
def set_distribution(conn, partner_code: str, code: str, active: bool) -> dict | None:
    """Pause (`active` False) or resume the partner's mapping of the property that `code`
    names: the property's internal code or the partner's hotel code for it. The mapping's row
    (`hotel_code`, `property_code`, ...), None when the partner has no such mapping,
    AmbiguousProperty when the code names more than one. Only a change of state is recorded in
    the change feed and as a mapping.paused / mapping.resumed event, for that partner alone."""
    named = queries().mapping.find_mappings_named(conn, partner_code=partner_code, code=code)
    if not named:
        return None
    if len(named) > 1:
        raise AmbiguousProperty(code, named)
    row = queries().mapping.set_distribution(conn, mapping_id=named[0]["mapping_id"],
                                             active=active)
    if row["changed"]:
        queries().mapping.record_distribution_change(
            conn, property_id=row["property_id"], partner_id=row["partner_id"])
        log.record(conn, property_id=row["property_id"], partner_id=row["partner_id"],
                   environment=row["environment"],
                   type="mapping.resumed" if active else "mapping.paused",
                   data={"hotel_code": row["hotel_code"]})
    return row
