"""Figures from raw timings, and where they go: bench/results/<label>.json, a plot at
bench/results/<label>.png (run outputs, not committed: a picture is copied into docs/ only where
a page shows it), and the block `<!-- bench:<label> -->` of docs/benchmarks.md when the
document has one (the prose around it is written by hand)."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from .machine import one_line

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
DOC = ROOT / "docs" / "benchmarks.md"


def target_value(target: dict) -> str:
    """A target's figure as the report and the run's last lines print it."""
    if target["value"] is None:
        return "-"
    places = 3 if target["unit"] == "x" else 2  # a share such as 0.064 of the reference
    return f"{target['value']:.{places}f} {target['unit']}"


def percentile(ordered: list[int], q: float) -> float:
    """Nearest rank: the smallest value with at least q of the sample at or below it."""
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else float("nan")


def figures(outcome, *, expected) -> dict:
    ordered = sorted(outcome.latencies_ns)
    n = len(ordered)
    elapsed = outcome.finished - outcome.started if n else 0.0
    statuses = {str(k): v for k, v in sorted(outcome.statuses.items(), key=lambda kv: str(kv[0]))}
    unexpected = {k: v for k, v in outcome.statuses.items() if not expected(k)}
    return {
        "requests": n,
        "seconds": round(elapsed, 3),
        "rps": round(n / elapsed, 1) if elapsed > 0 else 0.0,
        "p50_ms": round(percentile(ordered, 0.50) / 1e6, 2),
        "p90_ms": round(percentile(ordered, 0.90) / 1e6, 2),
        "p99_ms": round(percentile(ordered, 0.99) / 1e6, 2),
        "mean_ms": round(sum(ordered) / n / 1e6, 2) if n else None,
        "max_ms": round(ordered[-1] / 1e6, 2) if n else None,
        "statuses": statuses,
        "unexpected": sum(unexpected.values()),
        "server_errors": sum(v for k, v in outcome.statuses.items()
                             if (isinstance(k, int) and k >= 500) or str(k).startswith("error")),
        "reconnects": outcome.reconnects,
        "samples": {str(k): v for k, v in outcome.samples.items()},
        "errors": outcome.errors[:5],
    }


def write_json(results: dict, label: str) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{label}.json"
    path.write_text(json.dumps(results, indent=2, default=str) + "\n")
    return path


def plot(results: dict, label: str) -> Path | None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed (requirements-bench.txt): no plot", flush=True)
        return None
    rows = results["scenarios"]
    names = [f"{r['name']}\nc={r['concurrency']}" for r in rows]
    fig, (lat, thr) = plt.subplots(1, 2, figsize=(11, 4.2))
    x = range(len(rows))
    width = 0.38
    p50 = [r["p50_ms"] for r in rows]
    p99 = [r["p99_ms"] for r in rows]
    lat.bar([i - width / 2 for i in x], p50, width, label="p50", color="#4c72b0")
    lat.bar([i + width / 2 for i in x], p99, width, label="p99", color="#dd8452")
    for i, (a, b) in enumerate(zip(p50, p99)):
        lat.annotate(f"{a:g}", (i - width / 2, a), ha="center", va="bottom", fontsize=7)
        lat.annotate(f"{b:g}", (i + width / 2, b), ha="center", va="bottom", fontsize=7)
    lat.set_xticks(list(x), names, fontsize=8)
    lat.set_ylabel("latency (ms)")
    lat.set_title("latency (c = concurrent connections)")
    lat.legend()
    rps = [r["rps"] for r in rows]
    thr.bar(list(x), rps, 0.6, color="#55a868")
    for i, v in enumerate(rps):
        thr.annotate(f"{v:,.0f}", (i, v), ha="center", va="bottom", fontsize=7)
    thr.set_xticks(list(x), names, fontsize=8)
    thr.set_ylabel("requests / s")
    thr.set_title("throughput")
    fig.suptitle(f"bench '{label}', {results['started_at'][:16]} UTC, "
                 f"{results['machine']['cores']} cores", fontsize=10)
    fig.tight_layout()
    path = ROOT / "bench" / "results" / f"{label}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def markdown(results: dict, label: str) -> str:
    code = results.get("code") or {}
    lines = [f"Run `{label}`, {results['started_at'][:16]} UTC, code {code.get('commit') or '?'}"
             f"{' with local changes' if code.get('changed') else ''}: "
             f"{one_line(results['machine'])}.",
             "", f"Command: `{results['command']}`", "",
             "| scenario | requests | concurrency | p50 ms | p99 ms | mean ms | req/s | req/s, all rounds |"
             " statuses | CPU ms/req: server, PostgreSQL, Redis, client |",
             "|---|---:|---:|---:|---:|---:|---:|---|---|---|"]
    for r in results["scenarios"]:
        cpu = r.get("cpu") or {}
        statuses = ", ".join(f"{k}: {v}" for k, v in r["statuses"].items())
        rounds = " ".join(f"{x['rps']:,.0f}" for x in r.get("rounds", [])) or "-"
        cpu_text = ", ".join(str(cpu.get(f"{g}_ms_per_request", "-"))
                             for g in ("server", "postgres", "redis", "client"))
        lines.append(f"| {r['name']} | {r['requests']} | {r['concurrency']} | {r['p50_ms']} | "
                     f"{r['p99_ms']} | {r['mean_ms']} | {r['rps']:,.0f} | {rounds} | {statuses} | "
                     f"{cpu_text} |")
    if results["targets"]:
        lines += ["", "| target | value | met |", "|---|---:|---|"]
        for t in results["targets"]:
            lines.append(f"| {t['target']} | {target_value(t)} | "
                         f"{'not judged: ' + t['not_judged'] if t.get('not_judged') else 'yes' if t['met'] else '**no**'} |")
    lines += ["", f"Plot: `bench/results/{label}.png` (not committed)."]
    return "\n".join(lines)


def update_doc(results: dict, label: str) -> bool:
    """Rewrite this label's block of docs/benchmarks.md; False when the document has none."""
    if not DOC.exists():
        return False
    text = DOC.read_text()
    pattern = re.compile(rf"(<!-- bench:{re.escape(label)} -->)\n.*?(<!-- /bench:{re.escape(label)} -->)",
                         re.S)
    if not pattern.search(text):
        return False
    DOC.write_text(pattern.sub(
        lambda m: f"{m.group(1)}\n{markdown(results, label)}\n{m.group(2)}", text))
    return True


def republish(label: str) -> None:
    """Redraw the plot and rewrite the document block of a results file already written:
    `python -m bench.report LABEL` (after editing the document's prose, say)."""
    import json as _json
    results = _json.loads((RESULTS / f"{label}.json").read_text())
    plot(results, label)
    print(f"docs/benchmarks.md block '{label}':", "updated" if update_doc(results, label)
          else "absent (add <!-- bench:LABEL --> and <!-- /bench:LABEL --> lines)")


if __name__ == "__main__":
    import sys
    for name in sys.argv[1:]:
        republish(name)
