"""Generate the bench data set: the catalogue of bench/dataset.py and 365 days of ARI from today,
about 3.65 M room_type_days and 11 M rate_plan_days rows, written with COPY.

Idempotent: a marker row records the spec and the first date; a run that finds a matching,
fresh marker skips generation. Deterministic: one seeded random stream, rows in primary-key
order. Run alone with `python -m bench.generate [--force]`.

Why it is fast enough (about 1-2 minutes on 2 cores): rows are assembled from precomputed string
pieces (prices per season level, restriction tails per random bucket), the two tables stream
through two COPY connections at once with psycopg's queued writer (generation overlaps the
server's parsing), COPY FREEZE into tables truncated in the same transaction skips the later
hint-bit and freeze writes, and foreign-key triggers are skipped when the role may do so (the
rows reference only the catalogue just loaded, by construction).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from datetime import date, timedelta

import psycopg
from babel.numbers import get_currency_precision
from psycopg.copy import QueuedLibpqWriter
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from connectivity.operator.catalog import load_catalog, parse_catalog

from .dataset import RATE_PLANS, ROOM_TYPES, Spec, catalog_json, property_code

# A marker older than this is regenerated: scenarios ask for stays starting after today, which
# must stay inside the 365 generated days.
STALE_AFTER_DAYS = 30

RT_COPY = ("COPY room_type_days (property_id, date, room_type_id, available, closed, min_stay, "
           "max_stay, closed_to_arrival, closed_to_departure) FROM STDIN WITH (FREEZE)")
RP_COPY = ("COPY rate_plan_days (property_id, date, room_type_id, rate_plan_id, rate, single_rate, "
           "extra_adult_rate, extra_child_rate, closed, min_stay, max_stay, closed_to_arrival, "
           "closed_to_departure) FROM STDIN WITH (FREEZE)")

MARKER_DDL = """CREATE TABLE IF NOT EXISTS bench_dataset (
    id integer PRIMARY KEY DEFAULT 1 CHECK (id = 1), spec jsonb NOT NULL, start_date date NOT NULL,
    room_type_days bigint NOT NULL, rate_plan_days bigint NOT NULL, seconds numeric NOT NULL,
    generated_at timestamptz NOT NULL DEFAULT now())"""


def _tails(buckets: list[tuple[int, str]], default: str) -> list[str]:
    """A 1000-entry table: one random draw picks a row's (rare) restriction by its bucket."""
    table = []
    for width, tail in buckets:
        table += [tail] * width
    return table + [default] * (1000 - len(table))


N = "\\N"
# room_type_days: closed, min_stay, max_stay, closed_to_arrival, closed_to_departure. The first
# 30 buckets are also the sold-out days (available 0).
RT_TAILS = _tails([(30, f"f\t{N}\t{N}\tf\tf"), (15, f"t\t{N}\t{N}\tf\tf"),
                   (50, f"f\t2\t{N}\tf\tf"), (30, f"f\t3\t{N}\tf\tf"),
                   (10, f"f\t{N}\t14\tf\tf"), (20, f"f\t{N}\t{N}\tt\tf"),
                   (15, f"f\t{N}\t{N}\tf\tt")], f"f\t{N}\t{N}\tf\tf")
SOLD_OUT_BUCKETS = 30
# rate_plan_days: the first 5 buckets have no price at all (never sent: not sellable, no_rate).
RP_TAILS = _tails([(5, f"f\t{N}\t{N}\tf\tf"), (10, f"t\t{N}\t{N}\tf\tf"),
                   (30, f"f\t2\t{N}\tf\tf"), (10, f"f\t{N}\t{N}\tt\tf")], f"f\t{N}\t{N}\tf\tf")
NO_RATE_BUCKETS = 5
NO_PRICES = f"{N}\t{N}\t{N}\t{N}"


def ensure_dataset(database_url: str, spec: Spec = Spec(), *, force: bool = False) -> dict:
    """Generate unless the database already holds this spec's data set; returns the marker."""
    marker = present_dataset(database_url, spec, force=force)
    if marker is not None:
        print(f"data set present (generated {marker['generated_at']:%Y-%m-%d %H:%M} in "
              f"{float(marker['seconds']):.0f} s, ARI from {marker['start_date']}): not regenerating",
              flush=True)
        return marker
    return generate(database_url, spec, date.today())


def present_dataset(database_url: str, spec: Spec = Spec(), *, force: bool = False) -> dict | None:
    """The marker of this spec's data set when the database holds it fresh; None when the next
    ensure_dataset generates."""
    with psycopg.connect(database_url, autocommit=True, row_factory=dict_row) as conn:
        conn.execute(MARKER_DDL)
        marker = conn.execute("SELECT * FROM bench_dataset").fetchone()
    if (not force and marker and marker["spec"] == spec.as_dict()
            and marker["start_date"] >= date.today() - timedelta(days=STALE_AFTER_DAYS)):
        return marker
    return None


def generate(database_url: str, spec: Spec, start: date) -> dict:
    started = time.monotonic()
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("DELETE FROM bench_dataset")  # no marker while the data is incomplete
    print(f"generating the data set: {spec.properties} properties x {len(ROOM_TYPES)} room types "
          f"x {len(RATE_PLANS)} rate plans, {spec.days} days of ARI from {start}", flush=True)
    _load_catalog(database_url, spec)
    print(f"  catalogue loaded ({time.monotonic() - started:.1f} s)", flush=True)
    counts = _load_ari(database_url, spec, start, started)
    with psycopg.connect(database_url, autocommit=True) as conn:
        t = time.monotonic()
        # The whole database: the catalogue tables too, so the first measurements do not run
        # on the planner's guesses (or heap fetches) before autovacuum gets to them.
        conn.execute("VACUUM (ANALYZE)")
        print(f"  vacuum analyze ({time.monotonic() - t:.1f} s)", flush=True)
    seconds = round(time.monotonic() - started, 1)
    with psycopg.connect(database_url, autocommit=True, row_factory=dict_row) as conn:
        marker = conn.execute(
            "INSERT INTO bench_dataset (spec, start_date, room_type_days, rate_plan_days, seconds)"
            " VALUES (%s, %s, %s, %s, %s) RETURNING *",
            (Jsonb(spec.as_dict()), start, counts[0], counts[1], seconds)).fetchone()
    print(f"data set generated in {seconds:.0f} s: {counts[0]:,} room_type_days, "
          f"{counts[1]:,} rate_plan_days rows", flush=True)
    return marker


def _load_catalog(database_url: str, spec: Spec) -> None:
    catalog = parse_catalog(catalog_json(spec))
    with psycopg.connect(database_url, row_factory=dict_row) as conn:
        load_catalog(conn, catalog)
        # Minor units per currency, where the schema has such a table: `catalog load` does not
        # fill it, so the bench writes the rows itself, leaving any existing row alone.
        if conn.execute("SELECT to_regclass('currencies') IS NOT NULL AS present").fetchone()["present"]:
            codes = sorted({p["currency"] for p in catalog["properties"]}
                           | {c for r in catalog["fx_rates"] for c in (r["base"], r["quote"])})
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO currencies (code, minor_units) VALUES (%s, %s) "
                                "ON CONFLICT DO NOTHING",
                                [(c, get_currency_precision(c)) for c in codes])


def _bulk_session(conn: psycopg.Connection) -> None:
    conn.execute("SET synchronous_commit = off")
    try:
        with conn.transaction():
            conn.execute("SET session_replication_role = replica")  # skip the FK triggers
    except psycopg.errors.InsufficientPrivilege:
        pass  # not a superuser: the foreign keys are checked row by row, which is only slower


def _load_ari(database_url: str, spec: Spec, start: date, started: float) -> tuple[int, int]:
    with psycopg.connect(database_url, row_factory=dict_row) as meta:
        properties = _catalogue_ids(meta, spec)
    dates = [(start + timedelta(days=d)).isoformat() for d in range(spec.days)]
    levels = [_season_level(start + timedelta(days=d)) for d in range(spec.days)]
    rng = random.Random(spec.seed)
    rt_rows = rp_rows = 0
    with psycopg.connect(database_url) as rt_conn, psycopg.connect(database_url) as rp_conn:
        for conn, table in ((rt_conn, "room_type_days"), (rp_conn, "rate_plan_days")):
            _bulk_session(conn)
            conn.execute(f"TRUNCATE {table}")  # FREEZE needs the truncate in the same transaction
        with rt_conn.cursor() as rt_cur, rp_conn.cursor() as rp_cur, \
                rt_cur.copy(RT_COPY, writer=QueuedLibpqWriter(rt_cur)) as rt_copy, \
                rp_cur.copy(RP_COPY, writer=QueuedLibpqWriter(rp_cur)) as rp_copy:
            for i, prop in enumerate(properties, 1):
                rt_text, rp_text, rts, rps = _property_rows(prop, dates, levels, rng)
                rt_copy.write(rt_text)
                rp_copy.write(rp_text)
                rt_rows += rts
                rp_rows += rps
                if i % 100 == 0:
                    print(f"  ARI: {i}/{len(properties)} properties, {rp_rows + rt_rows:,} rows "
                          f"({time.monotonic() - started:.0f} s)", flush=True)
        rt_conn.commit()
        rp_conn.commit()
    return rt_rows, rp_rows


def _catalogue_ids(conn: psycopg.Connection, spec: Spec) -> list[dict]:
    """Per bench property: its id, currency, room types and rate plans with their occupancy
    rules, ordered by id (the primary keys' order, so index inserts append)."""
    codes = [property_code(n) for n in range(1, spec.properties + 1)]
    props = conn.execute("SELECT id, currency FROM properties WHERE code = ANY(%s) ORDER BY id",
                         (codes,)).fetchall()
    ids = [p["id"] for p in props]
    rts, rps = {}, {}
    for r in conn.execute("SELECT property_id, id, code FROM room_types WHERE property_id = ANY(%s)"
                          " ORDER BY id", (ids,)):
        rts.setdefault(r["property_id"], []).append(r)
    for r in conn.execute("SELECT property_id, id, code, base_adults, max_adults, max_children "
                          "FROM rate_plans WHERE property_id = ANY(%s) ORDER BY id", (ids,)):
        rps.setdefault(r["property_id"], []).append(r)
    return [{**p, "room_types": rts[p["id"]], "rate_plans": rps[p["id"]]} for p in props]


LEVELS = 16


def _season_level(day: date) -> int:
    """0..LEVELS-1: a yearly wave peaking in summer, Friday and Saturday nights dearer."""
    season = 1 + 0.25 * math.sin(2 * math.pi * (day.timetuple().tm_yday - 110) / 365)
    if day.weekday() in (4, 5):
        season *= 1.12
    return max(0, min(LEVELS - 1, round((season - 0.75) / 0.05)))


def _money(amount: float, currency: str) -> str:
    return f"{round(amount, -2):.0f}" if currency == "JPY" else f"{amount:.2f}"


def _price_blocks(prop: dict, rt: dict, plan: dict, occupancy: int, premium: float) -> list[str]:
    """rate, single_rate, extra_adult_rate, extra_child_rate per season level, as COPY text."""
    scale = 160.0 if prop["currency"] == "JPY" else 1.0
    factor = float(next(p[3] for p in RATE_PLANS if p[0] == plan["code"]))
    base = (45 + 30 * occupancy + premium) * factor * scale
    blocks = []
    for level in range(LEVELS):
        rate = base * (0.75 + 0.05 * level)
        single = (_money(rate * 0.85, prop["currency"])
                  if occupancy >= 2 and plan["base_adults"] >= 2 else N)
        # The apartment never gets an extra-adult price: such stays are not sellable (no_rate).
        extra_adult = (_money(28 * factor * scale, prop["currency"])
                       if plan["max_adults"] > plan["base_adults"] and rt["code"] != "APT" else N)
        extra_child = _money(12 * factor * scale, prop["currency"]) if plan["max_children"] else N
        blocks.append(f"{_money(rate, prop['currency'])}\t{single}\t{extra_adult}\t{extra_child}")
    return blocks


def _property_rows(prop: dict, dates: list[str], levels: list[int],
                   rng: random.Random) -> tuple[str, str, int, int]:
    occupancy = {code: occ for code, _, occ in ROOM_TYPES}
    premium = rng.randrange(0, 120, 5)
    rooms = []
    for rt in prop["room_types"]:
        plans = [(str(p["id"]), _price_blocks(prop, rt, p, occupancy[rt["code"]], premium))
                 for p in prop["rate_plans"]]
        rooms.append((str(rt["id"]), rng.randrange(3, 30), plans))
    pid, rand = str(prop["id"]), rng.random
    rt_lines, rp_lines = [], []
    rt_add, rp_add = rt_lines.append, rp_lines.append
    for day, level in zip(dates, levels):
        for rt_id, capacity, plans in rooms:
            bucket = int(rand() * 1000)
            available = 0 if bucket < SOLD_OUT_BUCKETS else 1 + int(rand() * capacity)
            rt_add(f"{pid}\t{day}\t{rt_id}\t{available}\t{RT_TAILS[bucket]}\n")
            prefix = f"{pid}\t{day}\t{rt_id}\t"
            for plan_id, blocks in plans:
                bucket = int(rand() * 1000)
                prices = NO_PRICES if bucket < NO_RATE_BUCKETS else blocks[level]
                rp_add(f"{prefix}{plan_id}\t{prices}\t{RP_TAILS[bucket]}\n")
    return "".join(rt_lines), "".join(rp_lines), len(rt_lines), len(rp_lines)


def main() -> None:
    from .stack import start_stack

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="regenerate even if present")
    args = parser.parse_args()
    stack = start_stack()
    try:
        ensure_dataset(stack.database_url, force=args.force)
    finally:
        stack.stop()


if __name__ == "__main__":
    main()
