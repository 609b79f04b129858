"""Where every table lives on a Citus cluster (docs/operations.md 6.4): the one home of the plan
that `flask --app app citus distribute` carries out and that the schema lint test
(tests/schema/test_sharding_lint.py) holds the schema to, on plain PostgreSQL as on Citus.

- distributed by `property_id`, all colocated: a stay's inventory, prices, bookings, batches and
  reservations are on one shard, so every single-property write is a router query;
- claims distributed by `partner_id`: idempotency keys that are global per partner (a replay
  may name another hotel, so they cannot be keyed by property);
- reference tables, copied to every node: the catalogue, partners, keys and mappings (small,
  written by operators' commands, read by every request to find a property from a code);
- local to the coordinator: the migrations' ledger.
"""

from __future__ import annotations

# Order matters for `create_distributed_table`: the first one of a colocation group sets it.
DISTRIBUTED_BY_PROPERTY = (
    "room_type_days",
    "rate_plan_days",
    "property_counters",
    "ari_batches",
    "bookings",
    "reservations",
    "reservation_versions",
    "reservation_nights",
    "reconciliation_items",
    "change_log",
)

DISTRIBUTED_BY_PARTNER = (
    "booking_claims",
    "reservation_claims",
)

# Referenced ones first: a reference table's foreign keys may only point at reference tables.
REFERENCE = (
    "partners",
    "api_keys",
    "properties",
    "room_types",
    "rate_plans",
    "rate_plan_room_types",
    "partner_properties",
    "partner_room_types",
    "partner_rate_plans",
    "fx_rates",
    "change_log_pruned",
)

COORDINATOR_LOCAL = ("schema_migrations",)


def distribution_column(table: str) -> str | None:
    """The column a table is sharded by, or None for reference and local tables."""
    if table in DISTRIBUTED_BY_PROPERTY:
        return "property_id"
    if table in DISTRIBUTED_BY_PARTNER:
        return "partner_id"
    return None


def planned_tables() -> set[str]:
    return (set(DISTRIBUTED_BY_PROPERTY) | set(DISTRIBUTED_BY_PARTNER) | set(REFERENCE)
            | set(COORDINATOR_LOCAL))
