"""ARI push scenarios: a 5,000-item PUT /ari accepted; the same pushes applied by the Procfile's
worker, timed from sending to `applied`; and the database floor, the same rows written straight
by COPY and an upsert.

Every batch goes to its own hotel (request i -> hotel i), on dates beyond the generated year, so
the discovery scenarios read the same data before and after these run."""

from __future__ import annotations

import http.client
import json
import os
import shlex
import signal
import statistics
import subprocess
import sys
import time
from urllib.parse import urlsplit

import psycopg

from .load import Request, Signed
from .scenarios import API, Context, direct_scenario, http_scenario
from .server import LOGS, ROOT

ITEMS = 5000
ROOM_TYPES = ("SGL", "DBL", "TWN", "TRP", "QUA", "FAM", "STU", "JSU", "SUI", "APT")
PLANS = ("BAR", "NRF", "HBR")
# Past the generated year (discovery reads the first months), well within the 2-year limit.
FIRST_DAY = 370
APPLIED_WITHIN_S = 2.0


def ari_items(ctx: Context, i: int) -> list[dict]:
    """5,000 items: every room type x rate plan over 167 days, availability and prices, the
    values shifted by i so that a rerun changes them."""
    items = []
    for d in range(FIRST_DAY, FIRST_DAY + 167):
        date = ctx.stay_date(d).isoformat()
        for r, room_type in enumerate(ROOM_TYPES):
            for p, plan in enumerate(PLANS):
                items.append({"room_type_code": ctx.code(room_type),
                              "rate_plan_code": ctx.code(plan), "date": date,
                              "availability": (d + r + abs(i)) % 9 + 1,
                              "rate": f"{100 + r * 10 + p * 5 + abs(i) % 7}.50",
                              "single_rate": f"{80 + r * 10 + abs(i) % 5}", "min_stay": 1,
                              "closed": False})
    return items[:ITEMS]


def hotel_of(ctx: Context, i: int) -> str:
    codes = ctx.hotel_codes()
    return codes[abs(i) % len(codes)]


def ari_body(ctx: Context, i: int) -> bytes:
    return json.dumps({"hotel_code": hotel_of(ctx, i), "items": ari_items(ctx, i)}).encode()


@http_scenario("ari-accept", f"PUT /ari, {ITEMS} items, signed push key: validated, stored, "
               "enqueued (202)", requests=40, concurrency=1, warmup=2)
def ari_accept(ctx: Context):
    auth = ctx.signed()
    bodies = {}

    def make(i):
        if i not in bodies:  # built once each, outside the next request's timing where possible
            bodies[i] = ari_body(ctx, i + 500)
        return Request("PUT", f"{API}/ari", bodies[i], auth)
    return make


@direct_scenario("ari-apply", f"PUT /ari of {ITEMS} items until the Procfile's worker has "
                 "applied it (status `applied` in PostgreSQL)", server="app", requests=30,
                 concurrency=1, warmup=1)
def ari_apply(ctx: Context):
    worker = WorkerProcess(ctx.settings)
    worker.start()
    # Batches accepted earlier (ari-accept) are applied first, so they are not measured here.
    wait_until_applied(ctx.database_url)
    with psycopg.connect(ctx.database_url) as conn:
        since = conn.execute("SELECT now()").fetchone()[0]
    ctx.finish(lambda: {**worker_figures(ctx.database_url, since), **worker.stop()})
    token = ctx.token("push", signed=True)
    target = urlsplit(ctx.base_url)

    def open_op():
        conn = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        db = psycopg.connect(ctx.database_url, autocommit=True)

        def op(i):
            body = ari_body(ctx, i)
            path = f"{API}/ari"
            headers = dict(line.split(": ", 1) for line in Signed(token).header_lines(
                "PUT", path, body).decode().strip().split("\r\n"))
            sent = time.monotonic()
            conn.request("PUT", path, body, {**headers, "Content-Type": "application/json"})
            response = conn.getresponse()
            answer = json.loads(response.read())
            if response.status != 202:
                return f"http:{response.status}"
            batch_id = answer["data"]["batch_id"]
            while time.monotonic() - sent < 30:
                status = db.execute("SELECT status FROM ari_batches WHERE id = %s",
                                    (batch_id,)).fetchone()[0]
                if status not in ("queued", "processing"):
                    return "ok" if status == "applied" else f"status:{status}"
                time.sleep(0.005)
            return "timeout"
        return op
    return open_op


@direct_scenario("ari-floor", f"the same {ITEMS} rows written directly: COPY into a temporary "
                 "table, then an upsert into each day table (the database floor)", requests=30,
                 concurrency=1, warmup=1)
def ari_floor(ctx: Context):
    with psycopg.connect(ctx.database_url) as conn:
        ids = dict(conn.execute(
            "SELECT pp.hotel_code, pp.property_id FROM partner_properties pp "
            "JOIN partners p ON p.id = pp.partner_id WHERE p.code = 'bench-all'").fetchall())
        room_types = dict(conn.execute("SELECT property_id || ':' || code, id FROM room_types"))
        plans = dict(conn.execute("SELECT property_id || ':' || code, id FROM rate_plans"))

    def open_op():
        conn = psycopg.connect(ctx.database_url, options="-c jit=off")

        def op(i):
            property_id = ids[hotel_of(ctx, i)]
            rows = [(property_id, item["date"],
                     room_types[f"{property_id}:{item['room_type_code'].split('-', 1)[1]}"],
                     plans[f"{property_id}:{item['rate_plan_code'].split('-', 1)[1]}"],
                     item["availability"], item["rate"], item["single_rate"], item["min_stay"],
                     item["closed"]) for item in ari_items(ctx, i)]
            with conn.transaction():
                write_floor(conn, rows)
            return "ok"
        return op
    return open_op


def write_floor(conn, rows: list[tuple]) -> None:
    conn.execute("CREATE TEMP TABLE floor_rows (property_id bigint, date date, "
                 "room_type_id bigint, rate_plan_id bigint, available int, rate numeric, "
                 "single_rate numeric, min_stay smallint, closed boolean) ON COMMIT DROP")
    with conn.cursor().copy("COPY floor_rows FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    conn.execute(
        "INSERT INTO room_type_days AS t (property_id, date, room_type_id, available) "
        "SELECT DISTINCT ON (property_id, date, room_type_id) property_id, date, room_type_id, "
        "available FROM floor_rows ORDER BY property_id, date, room_type_id "
        "ON CONFLICT (property_id, date, room_type_id) DO UPDATE SET "
        "available = EXCLUDED.available, updated_at = now()")
    conn.execute(
        "INSERT INTO rate_plan_days AS t (property_id, date, room_type_id, rate_plan_id, rate, "
        "single_rate, min_stay, closed) SELECT property_id, date, room_type_id, rate_plan_id, "
        "rate, single_rate, min_stay, closed FROM floor_rows "
        "ORDER BY property_id, date, room_type_id, rate_plan_id "
        "ON CONFLICT (property_id, date, room_type_id, rate_plan_id) DO UPDATE SET "
        "rate = EXCLUDED.rate, single_rate = EXCLUDED.single_rate, "
        "min_stay = EXCLUDED.min_stay, closed = EXCLUDED.closed, updated_at = now()")


def wait_until_applied(database_url: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    with psycopg.connect(database_url, autocommit=True) as conn:
        while time.monotonic() < deadline:
            if not conn.execute("SELECT count(*) FROM ari_batches "
                                "WHERE status IN ('queued', 'processing')").fetchone()[0]:
                return
            time.sleep(0.2)
    raise RuntimeError("the worker did not apply the waiting batches")


def worker_figures(database_url: str, since) -> dict:
    """How long the worker's apply took (started_at to applied_at, from PostgreSQL) for the
    batches of this scenario, and its rows per second."""
    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT extract(epoch FROM applied_at - started_at) * 1000, item_count "
            "FROM ari_batches WHERE received_at >= %s AND applied_at IS NOT NULL",
            (since,)).fetchall()
    if not rows:
        return {}
    apply_ms = sorted(float(ms) for ms, _ in rows)
    return {"apply_p50_ms": round(statistics.median(apply_ms), 2),
            "apply_max_ms": round(apply_ms[-1], 2),
            "worker_rows_per_s": round(sum(n for _, n in rows) / (sum(apply_ms) / 1000), 1)}


class WorkerProcess:
    """The Procfile's `worker:` command, with the service's settings."""

    def __init__(self, settings: dict, log_name: str = "worker.log"):
        self.log_name = log_name
        command = next(line.partition(":")[2] for line in (ROOT / "Procfile").read_text()
                       .splitlines() if line.startswith("worker:"))
        self.command = shlex.split(command)
        venv_bin = os.path.dirname(sys.executable)
        self.env = {**os.environ, **settings,
                    "PATH": f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        LOGS.mkdir(parents=True, exist_ok=True)
        with (LOGS / self.log_name).open("wb") as log:
            self.process = subprocess.Popen(self.command, cwd=ROOT, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        time.sleep(2)  # imports and its start-up recovery pass

    def stop(self) -> dict:
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)
        return {}
