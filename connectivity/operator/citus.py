"""`flask --app app citus distribute`: place every table of the schema on a Citus cluster as
connectivity/store/sharding.py plans it (docs/operations.md 6.4). On plain PostgreSQL (no `citus`
extension in the database) it says so and changes nothing.

Reference tables first (the distributed tables' foreign keys point at them), then the tables
distributed by `property_id` in one colocation group, then those by `partner_id` in a group of
their own. A table already placed as planned is reported and skipped, so a second run does
nothing; the placements commit together or not at all, so a schema Citus refuses anywhere stays a
plain one on the coordinator, whole, until the schema allows every placement."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial

import psycopg
from psycopg.rows import dict_row

from connectivity.store import sharding
from connectivity.store.database import unpooled_connection
from connectivity.store.queries import queries

# Citus's own default. Tests use fewer: a TRUNCATE of a distributed table takes longer the more
# shards it has (docs/operations.md 6.4).
DEFAULT_SHARD_COUNT = 32


class DistributionBusy(RuntimeError):
    pass


@dataclass(frozen=True)
class Placement:
    table: str
    planned: str      # "reference", "distributed by property_id", ...
    # "placed", "already", "missing", "failed", "unplanned", or "undone" (placed, then rolled
    # back because another table failed)
    outcome: str
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"

    def line(self) -> str:
        words = {"placed": "placed", "already": "already placed, skipped",
                 "missing": "not in the schema yet, skipped",
                 "failed": "FAILED", "unplanned": "not in the sharding plan, left local",
                 "undone": "placeable, left as it was (another table failed)"}
        tail = f": {self.detail}" if self.detail else ""
        return f"{self.table:<24} {self.planned:<28} {words[self.outcome]}{tail}"


def citus_version(conn: psycopg.Connection) -> str | None:
    return queries().operator.citus_version(conn)


def distribute_database(database_url: str, shard_count: int = DEFAULT_SHARD_COUNT, *,
                        direct_url: str | None = None) -> tuple[str, list[Placement]] | None:
    """`distribute` on a session of its own (on `direct_url` when given: the advisory lock and
    the session setting it takes belong to one session, which a transaction pooler would not
    keep); the Citus version and the placements, or None on plain PostgreSQL (nothing done)."""
    with unpooled_connection(direct_url or database_url, autocommit=True,
                             row_factory=dict_row) as conn:
        version = citus_version(conn)
        if version is None:
            return None
        return version, distribute(conn, shard_count)


def distribute(conn: psycopg.Connection, shard_count: int = DEFAULT_SHARD_COUNT) -> list[Placement]:
    """Carry out the plan on `conn`, an autocommit connection to the coordinator with dict
    rows; one Placement per table of the plan or of the schema.

    All or nothing: a schema Citus refuses in one place is left entirely as it was, since a
    half-distributed one breaks writes (a day table's change-log trigger, run on a shard, would
    find no change_log there). Each table is tried in a savepoint, so every refusal is
    reported at once."""
    q = queries().operator
    if not q.try_lock_distribution(conn):
        raise DistributionBusy("another `citus distribute` is running on this database")
    try:
        q.keep_reference_foreign_keys_local(conn)
        present = {row["table_name"] for row in q.tables_to_place(conn)}
        try:
            with conn.transaction():
                q.copy_rows_without_triggers(conn)
                results = _place_all(conn, present, shard_count)
                if any(p.failed for p in results):
                    raise _Refused(results)
                if "change_log_probes" in present:
                    q.fill_change_log_probes(conn)
        except _Refused as refused:
            return [replace(p, outcome="undone") if p.outcome == "placed" else p
                    for p in refused.results]
        return results
    finally:
        q.unlock_distribution(conn)


class _Refused(Exception):
    def __init__(self, results: list[Placement]):
        super().__init__("refused")
        self.results = results


def _place_all(conn, present: set[str], shard_count: int) -> list[Placement]:
    results = [_place_reference(conn, table, present) for table in sharding.REFERENCE]
    for group in (sharding.DISTRIBUTED_BY_PROPERTY, sharding.DISTRIBUTED_BY_PARTNER):
        results += _place_group(conn, group, present, shard_count)
    results += [Placement(t, "-", "unplanned")
                for t in sorted(present - sharding.planned_tables())]
    results += [Placement(t, "local to the coordinator", "already")
                for t in sharding.COORDINATOR_LOCAL if t in present]
    return results


def _placements(conn: psycopg.Connection) -> dict[str, dict]:
    return {row["table_name"]: row for row in queries().operator.placements(conn)}


def _place_reference(conn, table: str, present: set[str]) -> Placement:
    planned = "reference"
    if table not in present:
        return Placement(table, planned, "missing")
    now = _placements(conn).get(table)
    if now is not None:
        if now["partmethod"] == "n" and now["repmodel"] == "t":
            return Placement(table, planned, "already")
        return Placement(table, planned, "failed", f"placed otherwise ({_describe(now)})")
    return _attempt(conn, table, planned,
                    lambda: queries().operator.create_reference_table(conn, table_name=table))


def _place_group(conn, group: tuple[str, ...], present: set[str],
                 shard_count: int) -> list[Placement]:
    results = []
    for table in group:
        column = sharding.distribution_column(table)
        planned = f"distributed by {column}"
        if table not in present:
            results.append(Placement(table, planned, "missing"))
            continue
        placements = _placements(conn)
        now = placements.get(table)
        if now is not None:
            if now["partmethod"] == "h" and now["distribution_column"] == column:
                results.append(Placement(table, planned, "already"))
            else:
                results.append(Placement(table, planned, "failed",
                                         f"placed otherwise ({_describe(now)})"))
            continue
        # The group's first table already distributed leads it (the plan's order, skipping
        # those that could not be placed yet).
        leader = next((t for t in group if placements.get(t, {}).get("partmethod") == "h"),
                      None)
        q = queries().operator
        if leader is None:
            place = partial(q.start_colocation_group, conn, table_name=table,
                            distribution_column=column, shard_count=shard_count)
        else:
            place = partial(q.join_colocation_group, conn, table_name=table,
                            distribution_column=column, colocated_table=leader)
        results.append(_attempt(conn, table, planned, place))
    return results


def _attempt(conn, table: str, planned: str, place) -> Placement:
    try:
        with conn.transaction():
            place()
    except psycopg.Error as exc:
        reason = exc.diag.message_primary or str(exc).splitlines()[0]
        detail = exc.diag.message_detail
        return Placement(table, planned, "failed", f"{reason} ({detail})" if detail else reason)
    return Placement(table, planned, "placed")


def _describe(row: dict) -> str:
    if row["partmethod"] == "h":
        return f"distributed by {row['distribution_column']}"
    return "reference" if row["repmodel"] == "t" else "a Citus local table"
