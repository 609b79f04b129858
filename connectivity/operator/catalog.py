"""`catalog load`: the idempotent upsert of properties, room types, rate plans, partners, their
mappings and FX rates. The whole file is one transaction: a bad entry names its field and
nothing at all is written."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import psycopg
from marshmallow import ValidationError
from psycopg.types.json import Jsonb

from connectivity.auth.keycache import KEY_STATE_CHANGED
from connectivity.store.database import announces
from connectivity.store.read_fence import READS_CHANGED
from connectivity.web.errors import flatten_messages
from connectivity.store.queries import queries
from connectivity.operator.catalog_schema import CatalogSchema


# What the database raises when its constraints refuse a catalogue the schema let through.
REFUSED_BY_CONSTRAINT = (psycopg.IntegrityError, psycopg.DataError)


class CatalogError(ValueError):
    def __init__(self, fields: dict[str, list[str]]):
        self.fields = fields
        super().__init__("; ".join(f"{path}: {' '.join(msgs)}" for path, msgs in fields.items()))


def parse_catalog(text: str) -> dict[str, Any]:
    try:
        # Decimal, not float: an FX rate of 1.0850 must stay 1.0850.
        raw = json.loads(text, parse_float=Decimal)
    except ValueError as exc:
        raise CatalogError({"file": [f"not valid JSON: {exc}"]}) from None
    if not isinstance(raw, dict):
        raise CatalogError({"file": ["must be a JSON object"]})
    try:
        return CatalogSchema().load(raw)
    except ValidationError as exc:
        raise CatalogError(flatten_messages(exc.messages)) from None


# A key's row carries its partner's name and whether the partner has a mapped property in the
# key's environment: a load can change both, so it is announced to the key caches.
@announces(KEY_STATE_CHANGED, READS_CHANGED)
def load_catalog(conn: psycopg.Connection, catalog: dict[str, Any]) -> dict[str, int]:
    """Write a parsed catalogue; the caller's transaction makes it all or nothing."""
    q = queries().operator
    content_before = _content_digests(conn, catalog)
    for i, prop in enumerate(catalog["properties"]):
        _load_property(conn, q, f"properties.{i}", prop)
    mappings = 0
    for i, partner in enumerate(catalog["partners"]):
        partner_id = q.upsert_partner(conn, code=partner["code"], name=partner["name"])["id"]
        for j, mapping in enumerate(partner["mappings"]):
            _load_mapping(conn, q, f"partners.{i}.mappings.{j}", partner_id, mapping)
            mappings += 1
    for rate in catalog["fx_rates"]:
        q.upsert_fx_rate(conn, base=rate["base"], quote=rate["quote"], rate=rate["rate"])
    _refuse_plans_without_fx(conn, q, catalog)
    _record_content_changes(conn, catalog, content_before)
    return {"properties": len(catalog["properties"]), "partners": len(catalog["partners"]),
            "mappings": mappings, "fx_rates": len(catalog["fx_rates"])}


def _load_property(conn, q, path: str, prop: dict) -> None:
    row = q.upsert_property(conn, code=prop["code"], name=prop["name"],
                            environment=prop["environment"], country=prop["country"],
                            timezone=prop["timezone"], currency=prop["currency"],
                            max_child_age=prop["max_child_age"])
    if row is None:
        raise CatalogError({f"{path}.environment": [
            f"property {prop['code']} already exists in another environment; "
            "a property never moves between sandbox and production"]})
    property_id = row["id"]
    room_types = prop["room_types"]
    q.upsert_room_types(conn, property_id=property_id, codes=[r["code"] for r in room_types],
                        names=[r["name"] for r in room_types],
                        max_occupancies=[r["max_occupancy"] for r in room_types])
    room_type_ids = {r["code"]: r["id"] for r in q.room_type_ids(conn, property_id=property_id)}
    for j, plan in enumerate(prop["rate_plans"]):
        unknown = [c for c in plan["room_types"] if c not in room_type_ids]
        if unknown:
            raise CatalogError({f"{path}.rate_plans.{j}.room_types": [
                f"not a room type of property {prop['code']}: {', '.join(unknown)}"]})
        plan_id = q.upsert_rate_plan(
            conn, property_id=property_id, code=plan["code"], name=plan["name"],
            board_type=plan["board_type"], currency=plan["currency"],
            base_adults=plan["base_adults"], max_adults=plan["max_adults"],
            max_children=plan["max_children"], max_occupancy=plan["max_occupancy"],
            allowed_nationalities=plan["allowed_nationalities"],
            blocked_nationalities=plan["blocked_nationalities"],
            cancellation_policy=Jsonb(plan["cancellation_policy"], dumps=_dumps))["id"]
        q.set_rate_plan_room_types(conn, property_id=property_id, rate_plan_id=plan_id,
                                   room_type_ids=[room_type_ids[c] for c in plan["room_types"]])


def _load_mapping(conn, q, path: str, partner_id: int, mapping: dict) -> None:
    prop = q.find_property(conn, code=mapping["property"])
    if prop is None:
        raise CatalogError({f"{path}.property": [
            f"no property {mapping['property']!r} in this file or the database"]})
    property_id = prop["id"]
    try:
        with conn.transaction():
            mapping_id = q.upsert_mapping(
                conn, partner_id=partner_id, property_id=property_id,
                environment=prop["environment"], hotel_code=mapping["hotel_code"],
                active=mapping["active"],
                receives_bookings=mapping["receives_bookings"])["id"]
    except psycopg.errors.UniqueViolation:
        raise CatalogError({f"{path}.hotel_code": [
            f"hotel code {mapping['hotel_code']!r} is already mapped to another property of "
            "this partner in this environment"]}) from None
    q.clear_mapping_codes(conn, mapping_id=mapping_id)
    for kind, lookup, insert in (
            ("room_types", q.room_type_ids, q.insert_mapped_room_types),
            ("rate_plans", q.rate_plan_ids, q.insert_mapped_rate_plans)):
        ids = {r["code"]: r["id"] for r in lookup(conn, property_id=property_id)}
        unknown = [c for c in mapping[kind] if c not in ids]
        if unknown:
            raise CatalogError({f"{path}.{kind}": [
                f"not a {kind[:-1].replace('_', ' ')} of property {mapping['property']}: "
                f"{', '.join(unknown)}"]})
        id_arg = "room_type_ids" if kind == "room_types" else "rate_plan_ids"
        insert(conn, mapping_id=mapping_id, property_id=property_id,
               codes=list(mapping[kind].values()),
               **{id_arg: [ids[c] for c in mapping[kind]]})


def _touched_properties(catalog: dict[str, Any]) -> set[str]:
    return ({prop["code"] for prop in catalog["properties"]}
            | {m["property"] for partner in catalog["partners"] for m in partner["mappings"]})


def _content_digests(conn, catalog: dict[str, Any]) -> dict[int, str]:
    """What resellers cache of each property the file touches (change feed, `content`)."""
    q = queries().operator
    digests = {}
    for code in _touched_properties(catalog):
        prop = q.find_property(conn, code=code)
        if prop is not None:
            digests[prop["id"]] = q.content_digest(conn, property_id=prop["id"])
    return digests


def _record_content_changes(conn, catalog: dict[str, Any], before: dict[int, str]) -> None:
    """A `content` change in the feed for each property whose content the load changed (a
    reload of the same file records none)."""
    q = queries().operator
    for property_id, digest in _content_digests(conn, catalog).items():
        if before.get(property_id) != digest:
            q.record_content_change(conn, property_id=property_id)


def _refuse_plans_without_fx(conn, q, catalog: dict) -> None:
    """Checked against the database after the upserts, so a plan loaded earlier and an FX rate
    in this file (or the reverse) count together."""
    missing = q.plans_priced_without_fx(conn)
    if not missing:
        return
    where = {(p["code"], plan["code"]): f"properties.{i}.rate_plans.{j}.currency"
             for i, p in enumerate(catalog["properties"])
             for j, plan in enumerate(p["rate_plans"])}
    errors: dict[str, list[str]] = {}
    for row in missing:
        path = where.get((row["property"], row["rate_plan"]), "fx_rates")
        errors.setdefault(path, []).append(
            f"rate plan {row['property']}/{row['rate_plan']} is priced in {row['currency']} but "
            f"its property sells in {row['property_currency']}: add an fx_rates entry between "
            "them")
    raise CatalogError(errors)


def _dumps(value: Any) -> str:
    return json.dumps(value, default=lambda d: int(d) if d == int(d) else float(d))
