"""What `catalog list` shows: the partners, properties and mappings loaded, each with its state
(a partner's active keys, a mapping active or paused), read in one transaction so that the
three lists agree."""

from __future__ import annotations

from connectivity.store.queries import queries


def list_catalog(conn) -> dict[str, list[dict]]:
    operator = queries().operator
    return {"partners": operator.list_partners(conn),
            "properties": operator.list_properties(conn),
            "mappings": operator.list_mappings(conn)}
