"""Where every table lives on a Citus cluster (docs/operations.md 6.4): the one home of the plan
that `flask --app app citus distribute` carries out and that the schema lint test
(tests/store/test_sharding_lint.py) holds the schema to, on plain PostgreSQL as on Citus.

- distributed by `property_id`, all colocated: a stay's inventory, prices, bookings, batches and
  reservations are on one shard, so every single-property write is a router query;
- claims distributed by `partner_id`: idempotency keys that are global per partner (a replay
  may name another hotel, so they cannot be keyed by property);
- reference tables, copied to every node: the catalogue, partners, keys and mappings (small,
  written by operators' commands, read by every request to find a property from a code);
- local to the coordinator: the migrations' ledger, and the read model's snapshots.
"""

from __future__ import annotations

from connectivity.store.queries import queries

# Order matters for `create_distributed_table`: the first one of a colocation group sets it.
DISTRIBUTED_BY_PROPERTY = (
    "room_type_days",
    "rate_plan_days",
    "property_counters",
    "ari_batches",
    # Beside its batch: the key and the batch are stored on one shard, in one phase.
    "ari_idempotency_keys",
    "ari_staged_values",
    "bookings",
    "reservations",
    "reservation_versions",
    "reservation_nights",
    "reconciliation_items",
    "change_log",
    # One row a shard: every node holding change_log answers for its horizon over cached
    # connections (migration 0039, filled by `citus distribute`).
    "change_log_probes",
    # Beside its cause (a booking, a batch, a reservation, a mapping of the hotel): an event is
    # written by its cause's transaction on the same shard, in one phase.
    "event_log",
)

DISTRIBUTED_BY_PARTNER = (
    "booking_claims",
    "reservation_claims",
    # A partner's webhook endpoints and their deliveries: every statement names the partner.
    "webhook_endpoints",
    "webhook_deliveries",
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
    "event_log_pruned",
    # One row, read once per process (bookings/confirmation.py).
    "confirmation_key",
)

# Read and written by the coordinator's clients alone (the model hosts' snapshots, migration 0040).
COORDINATOR_LOCAL = ("schema_migrations", "search_model_snapshots",
                     "search_model_snapshot_chunks")


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


def _group(table: str) -> str:
    """Tables Citus can keep keys between: one colocation group per distribution column."""
    column = distribution_column(table)
    if column is not None:
        return f"distributed by {column}"
    return "reference" if table in REFERENCE else "local"


def schema_problems(conn) -> list[str]:
    """What Citus would refuse, or what would lose a guarantee, when distributing this schema
    as planned: read from pg_catalog, so plain PostgreSQL answers it too. Empty when the schema
    can be distributed."""
    q = queries().store
    problems = []
    tables = {row["table_name"] for row in q.schema_tables(conn)}
    problems += [f"{t}: not in the plan (connectivity/store/sharding.py): place it"
                 for t in sorted(tables - planned_tables())]
    problems += [f"{t}: planned but not in the schema" for t in sorted(planned_tables() - tables)]
    for key in q.unique_keys(conn):
        column = distribution_column(key["table_name"])
        if column is not None and column not in key["columns"]:
            problems.append(
                f"{key['table_name']}: unique key {key['index_name']} ({', '.join(map(str, key['columns']))}) "
                f"lacks the distribution column {column}: Citus enforces it only within a shard")
    for fk in q.foreign_keys(conn):
        table, target = fk["table_name"], fk["referenced_table"]
        source_group, target_group = _group(table), _group(target)
        if target_group == "reference" and source_group != "local":
            continue
        if source_group == target_group == "local":
            continue  # plain tables on the coordinator, as on PostgreSQL
        column = distribution_column(table)
        pairs = dict(zip(fk["columns"], fk["referenced_columns"]))
        if (source_group == target_group and column is not None
                and pairs.get(column) == distribution_column(target)):
            continue
        problems.append(
            f"{table}: foreign key {fk['constraint_name']} to {target} ({source_group} to "
            f"{target_group}) is one Citus cannot keep: only to a reference table, or between "
            f"tables of one colocation group on their distribution column")
    for trigger in q.table_triggers(conn):
        if _group(trigger["table_name"]) != _group("room_type_days"):
            problems.append(
                f"{trigger['table_name']}: trigger {trigger['trigger_name']}: Citus fires "
                f"triggers only on the shards of tables distributed by property_id (with "
                f"citus.enable_unsafe_triggers); on a reference table it would fire once per "
                f"node's copy")
    return problems
