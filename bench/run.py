"""`python -m bench` (what `make bench` runs): servers, data set, keys, then each scenario in
turn against its server, then the results, the plot and the document block.

Exit status 1 when any scenario saw a 5xx or a client error, so a broken run cannot pass for a
slow one; the figures are written all the same."""

from __future__ import annotations

import argparse
import fcntl
import os
import shlex
import statistics
import sys
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from urllib.parse import urlsplit

import psycopg
from psycopg.rows import dict_row

from connectivity.auth.credentials import SigningVault
from connectivity.operator.keys import issue_key
from connectivity.store.queries import queries

from . import cpu, report
from .dataset import Spec
from .generate import ensure_dataset, present_dataset
from .load import drive, http_ops
from .machine import code_version, describe
from .scenarios import REGISTRY, TARGETS, Context, Scenario
# noqa below: imported to register their scenarios
from . import (ari, ari_stream, ari_visible, bookings, discovery, events,  # noqa: F401,E402
               hotel_bookings, search_fresh, under_writes)
from .server import WebServer
from .stack import Stack, distribute_bench_database, is_distributed, start_stack

DEFAULTS = {"requests": 20000, "concurrency": 16, "warmup": 50, "processes": 2, "rounds": 1}
LOCK = report.ROOT / ".local" / "bench.lock"
BUSY_WARNING = 0.10  # background CPU share above which a scenario's figures are flagged
RATE_LIMIT = 100000  # the highest a key may have; high enough not to throttle, still checked


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    p.add_argument("--scenarios", default="",
                   help=f"space- or comma-separated, in order (default all: {' '.join(REGISTRY)})")
    p.add_argument("--requests", type=int, help=f"measured per scenario ({DEFAULTS['requests']})")
    p.add_argument("--concurrency", type=int, help=f"connections ({DEFAULTS['concurrency']})")
    p.add_argument("--warmup", type=int, help=f"untimed requests per connection ({DEFAULTS['warmup']})")
    p.add_argument("--processes", type=int, default=DEFAULTS["processes"],
                   help="client processes the connections are spread over")
    p.add_argument("--rounds", type=int, default=DEFAULTS["rounds"],
                   help="run the scenario list this many times, report each scenario's median round")
    p.add_argument("--label", default="latest", help="results name: bench/results/LABEL.json")
    p.add_argument("--regenerate", action="store_true", help="regenerate the data set")
    p.add_argument("--citus", action="store_true",
                   help="DATABASE_URL is a Citus coordinator (`make citus`; its workers in "
                        "CITUS_WORKER_URLS, as .local/citus/env has them): the bench database is "
                        "made on every node and distributed after generation (CITUS_SHARD_COUNT, "
                        "32 by default)")
    args = p.parse_args(argv)
    names = args.scenarios.replace(",", " ").split() or list(REGISTRY)
    unknown = [n for n in names if n not in REGISTRY]
    if unknown:
        p.error(f"unknown scenario(s) {unknown}; known: {' '.join(REGISTRY)}")
    args.names = names
    return args


def make_command(args: argparse.Namespace) -> str:
    """The `make bench` line that reproduces this run, with the settings it took from the
    environment (servers, WEB_*; a password in a URL is masked)."""
    parts = ["make bench", f'SCENARIOS="{" ".join(args.names)}"']
    for name in ("requests", "concurrency", "warmup"):
        if getattr(args, name) is not None:
            parts.append(f"{name.upper()}={getattr(args, name)}")
    if args.processes != DEFAULTS["processes"]:
        parts.append(f"CLIENTS={args.processes}")
    if args.rounds != DEFAULTS["rounds"]:
        parts.append(f"ROUNDS={args.rounds}")
    if args.label != "latest":
        parts.append(f"LABEL={args.label}")
    if args.citus:
        parts.append("BENCH_ARGS=--citus")
    env = [f"{k}={','.join(map(_without_password, os.environ[k].split(',')))}" for k in (
        "DATABASE_URL", "REDIS_URL", "BENCH_DATABASE", "WEB_CONCURRENCY", "WEB_THREADS",
        "DB_POOL_SIZE", "SEARCH_MODEL_SHARED", *(("CITUS_WORKER_URLS", "CITUS_SHARD_COUNT") if args.citus else ()))
        if os.environ.get(k)]
    return " ".join(env + parts)


def _without_password(value: str) -> str:
    parts = urlsplit(value)
    if parts.password:
        return value.replace(f":{parts.password}@", ":***@")
    return value


class KeyRing:
    """Fresh keys per scenario and round, issued with the operator's own code path, named after
    this run; the run revokes them when it ends (their secrets die with it anyway)."""

    def __init__(self, database_url: str, secret_key: str):
        self._url = database_url
        self._vault = SigningVault(secret_key)
        self._issued: dict[tuple, str] = {}
        self._names: set[tuple[str, str]] = set()
        self._run = f"{os.getpid()}-{int(time.time())}"
        self._round = 1

    def token(self, scenario: str, preset: str, signed: bool | None, partner: str) -> str:
        wanted = (scenario, preset, signed, partner)
        if wanted not in self._issued:
            name = (f"bench {self._run} r{self._round} {scenario} {preset}"
                    f"{' signed' if signed else ''}")
            with psycopg.connect(self._url, row_factory=dict_row) as conn:
                key = issue_key(conn, self._vault, partner_code=partner, name=name,
                                environment="sandbox", preset=preset, signed=signed,
                                rate_limit=RATE_LIMIT)
            self._names.add((partner, name))
            self._issued[wanted] = key.token
        return self._issued[wanted]

    def new_round(self, number: int) -> None:
        # Each round gets fresh keys, so several rounds never add up to a key's limit.
        self._issued.clear()
        self._round = number

    def revoke_all(self) -> None:
        with psycopg.connect(self._url, row_factory=dict_row) as conn:
            for partner, name in self._names:
                queries().operator.revoke_keys_named(conn, partner_code=partner, name=name)


@contextmanager
def exclusive_run():
    """One bench run at a time per checkout: two at once on a small machine measure each
    other. A second run waits for the first."""
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with LOCK.open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"another bench run holds {LOCK.relative_to(report.ROOT)}: waiting for it",
                  flush=True)
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def run_scenario(scenario: Scenario, ctx: Context, server: WebServer | None,
                 args: argparse.Namespace, sampler: cpu.Sampler) -> dict:
    n = args.requests or scenario.requests or DEFAULTS["requests"]
    c = args.concurrency or scenario.concurrency or DEFAULTS["concurrency"]
    w = args.warmup if args.warmup is not None else (
        scenario.warmup if scenario.warmup is not None else DEFAULTS["warmup"])
    ctx.scenario = scenario.name
    ctx.base_url = f"http://127.0.0.1:{server.port}" if server else None
    ctx.finishers = []
    ctx.window = (None, None)
    built = scenario.build(ctx)
    background = cpu.background_share()
    # A stream the scenario started (under_writes.py) is the company it asked for.
    if background is not None and background > BUSY_WARNING and not ctx.writer_pids:
        print(f"  !! the machine is {background:.0%} busy before {scenario.name} starts: other "
              "work competes with the figures that follow", flush=True)
    open_op = http_ops("127.0.0.1", server.port, built) if scenario.kind == "http" else built
    server_pid = server.process.pid if server else None
    marks = {}

    def started(_client_pids):
        marks["before"] = sampler.snapshot(server_pid, ctx.writer_pids)

    try:
        outcome = drive(open_op, requests=n, concurrency=c, warmup=w, processes=args.processes,
                        on_start=started)
        after = sampler.snapshot(server_pid, ctx.writer_pids)
        # The measured window (perf_counter), for a finisher that counts what happened in it.
        ctx.window = ((marks.get("before") or {}).get("at"), (after or {}).get("at"))
    finally:
        extra = {}
        for finisher in ctx.finishers:
            extra.update(finisher() or {})
    if server:
        # A finisher may report requests of its own to the server (a background stream's).
        server.requests_sent += ((n + w * c) * scenario.requests_per_op
                                 + extra.pop("server_requests", 0))
    result = {"name": scenario.name, "description": scenario.description,
              "server": scenario.server, "concurrency": c, "warmup_per_connection": w,
              "background_busy_share": background,
              **report.figures(outcome, expected=scenario.expect)}
    result["cpu"] = cpu.usage(marks.get("before"), after, result["requests"], outcome.client_cpu_s)
    result.update(extra)
    if scenario.verify is not None:
        result["checks"] = scenario.verify(ctx)
    return result


def summarize_rounds(rounds: list[dict]) -> dict:
    """The round with the median req/s stands for the scenario; every round is kept."""
    ordered = sorted(rounds, key=lambda r: r["rps"])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    if len(rounds) > 1:
        chosen["rounds"] = [{**{k: r[k] for k in ("rps", "p50_ms", "p99_ms")},
                             "reads_own_ms_per_request": (r.get("cpu") or {}).get(
                                 "reads_own_ms_per_request")} for r in rounds]
        chosen["rps_spread"] = round(statistics.pstdev(r["rps"] for r in rounds), 1)
    return chosen


def print_line(r: dict) -> None:
    cpu_info = r.get("cpu") or {}
    print(f"  {r['name']:<14} p50 {r['p50_ms']:>8.2f} ms  p99 {r['p99_ms']:>8.2f} ms  "
          f"mean {r['mean_ms']:>8.2f} ms  {r['rps']:>9,.1f} req/s  {r['statuses']}"
          + (f"  cpu ms/req server {cpu_info.get('server_ms_per_request')} pg "
             f"{cpu_info.get('postgres_ms_per_request')} redis {cpu_info.get('redis_ms_per_request')}"
             f" client {cpu_info.get('client_ms_per_request')} busy "
             f"{cpu_info.get('machine_busy_share')} other {cpu_info.get('unattributed_share')}"
             f" reads' own {cpu_info.get('reads_own_ms_per_request')}"
             if cpu_info else ""), flush=True)
    if "checks" in r:
        print(f"    checks: {r['checks']}", flush=True)
    if r["unexpected"]:
        print(f"    !! {r['unexpected']} unexpected answers; first bodies: {r['samples']} "
              f"{r['errors']}", flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    with exclusive_run():
        results = measure(args)
    results["python_command"] = shlex.join(["python", "-m", "bench", *(
        sys.argv[1:] if argv is None else argv)])
    return _publish(results, args.label)


def measure(args: argparse.Namespace) -> dict:
    started_at = datetime.now(timezone.utc)
    stack = start_stack(citus=args.citus)
    server: WebServer | None = None
    keys: KeyRing | None = None
    log_checks = []
    try:
        if args.citus:
            marker = _citus_dataset(stack, args.regenerate)
        else:
            marker = ensure_dataset(stack.database_url, force=args.regenerate)
        stack.clear_redis()
        machine = describe(stack.database_url, stack.redis_url, stack.embedded)
        keys = KeyRing(stack.database_url, stack.secret_key)
        sampler = cpu.Sampler(stack.database_url, stack.redis_url, stack.citus_workers)
        settings = {"DATABASE_URL": stack.database_url, "REDIS_URL": stack.redis_url,
                    "SECRET_KEY": stack.secret_key, "REDIS_PREFIX": stack.redis_prefix,
                    # Search's read model loads the data set as the server starts (`search`
                    # waits for it).
                    "SEARCH_MODEL_PRELOAD": "on"}
        ctx = Context(stack.database_url, Spec(), marker["start_date"], keys.token,
                      settings=settings)
        per_scenario: dict[str, list[dict]] = {n: [] for n in args.names}
        for round_no in range(1, args.rounds + 1):
            print(f"round {round_no}/{args.rounds}" if args.rounds > 1 else "measuring", flush=True)
            keys.new_round(round_no)
            for name in args.names:
                scenario = REGISTRY[name]
                if server and server.kind != scenario.server:
                    log_checks.append(_stop(server))
                    server = None
                if scenario.server and server is None:
                    server = WebServer(scenario.server, settings)
                    server.start()
                result = run_scenario(scenario, ctx, server, args, sampler)
                print_line(result)
                per_scenario[name].append(result)
        if server:
            log_checks.append(_stop(server))
            server = None
    finally:
        if server:
            server.stop()
        if keys:
            keys.revoke_all()
        stack.stop()

    rows = [summarize_rounds(per_scenario[n]) for n in args.names]
    under_writes.reads_less_the_stream(rows)
    by_name = {r["name"]: r for r in rows}
    targets = []
    for t in TARGETS:
        if all(s in by_name for s in t.scenarios):
            value = t.value(by_name)
            not_judged = ("not measured in this run" if value is None
                          else t.conditions_differ(by_name))
            targets.append({"target": t.text,
                            "value": None if value is None else round(value, 3),
                            "unit": t.unit, "met": None if not_judged else t.met(value),
                            **({"not_judged": not_judged} if not_judged else {})})
    return {"label": args.label, "started_at": started_at.isoformat(),
            "command": make_command(args), "code": code_version(), "machine": machine,
            "dataset": {k: marker[k] for k in ("spec", "start_date", "room_type_days",
                                               "rate_plan_days", "seconds")},
            "client": {"processes": args.processes, "rounds": args.rounds},
            "request_log_check": [c for c in log_checks if c], "scenarios": rows,
            "targets": targets}


def _citus_dataset(stack: Stack, force: bool) -> dict:
    """The data set in a distributed bench database: generated into plain tables on the
    coordinator, then distributed (Citus copies the rows into the shards, triggers silent).
    Generated into distributed tables instead, the rows would pass through the shards' triggers:
    the generator silences them with a session SET, which Citus does not send on to the workers
    (only SET LOCAL, under citus.propagate_set_commands), so every row would be logged as a
    change. A distributed database that needs the data set again therefore starts over."""
    if present_dataset(stack.database_url, force=force) is None and is_distributed(
            stack.database_url):
        print("the data set is to be generated again into a distributed database: dropping "
              "and recreating the bench database on every node", flush=True)
        stack.start_over()
    marker = ensure_dataset(stack.database_url, force=force)
    distribute_bench_database(stack.database_url, stack.citus_workers)
    return marker


def _stop(server: WebServer) -> dict | None:
    server.stop()
    if server.kind != "app":
        return None
    lines = server.request_log_lines()
    check = {"server": server.kind, "requests_sent": server.requests_sent, "log_lines": lines,
             "one_line_per_request": lines == server.requests_sent}
    if lines != server.requests_sent:
        print(f"  !! request log: {lines} lines for {server.requests_sent} requests", flush=True)
    return check


def _publish(results: dict, label: str) -> int:
    path = report.write_json(results, label)
    print(f"\nresults: {path.relative_to(report.ROOT)}")
    image = report.plot(results, label)
    if image:
        print(f"plot: {image.relative_to(report.ROOT)}")
    if report.update_doc(results, label):
        print(f"docs/benchmarks.md: block '{label}' updated")
    for t in results["targets"]:
        verdict = (f"not judged ({t['not_judged']})" if t.get("not_judged")
                   else "met" if t["met"] else "MISSED")
        print(f"target {t['target']}: {report.target_value(t)} -> {verdict}")
    broken = [r for r in results["scenarios"] if r["server_errors"] or r["errors"]
              or not r.get("checks", {}).get("ok", True)]
    odd = [r for r in results["scenarios"] if r["unexpected"]]
    if broken or odd:
        print("\n" + "!" * 78)
        for r in broken:
            print(f"!! {r['name']}: {r['server_errors']} server errors (5xx or client errors): "
                  f"{r['statuses']} {r['errors']}")
        for r in odd:
            print(f"!! {r['name']}: {r['unexpected']} answers outside the expected statuses: "
                  f"{r['statuses']}; see samples in the results file")
        print("!" * 78)
    return 1 if broken else 0
