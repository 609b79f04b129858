"""The house's shape, held by the build: the import rules of `.importlinter` (layers, the service
never importing devtools or the dev-only servers, pricing pure) and no import cycle between the
service's top-level packages. An arrow running back up fails here, not in review."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent


def test_the_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--config", str(ROOT / ".importlinter"), "--no-cache"],
                            cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def package_cycles(graph: grimp.ImportGraph, parent: str) -> list[list[str]]:
    """Each cycle of imports between `parent`'s direct children (as packages), once."""
    children = sorted(graph.find_children(parent))
    edges = {a: [b for b in children if b != a and graph.direct_import_exists(
        importer=a, imported=b, as_packages=True)] for a in children}
    cycles, seen = [], set()

    def walk(start: str, node: str, path: list[str]) -> None:
        for nxt in edges[node]:
            if nxt == start:
                key = frozenset(path)
                if key not in seen:
                    seen.add(key)
                    cycles.append(path + [start])
            elif nxt not in path and nxt > start:
                walk(start, nxt, path + [nxt])

    for start in children:
        walk(start, start, [start])
    return cycles


def test_no_cycle_between_the_service_packages():
    graph = grimp.build_graph("connectivity", exclude_type_checking_imports=True)
    assert package_cycles(graph, "connectivity") == []


def test_the_cycle_check_finds_a_cycle():
    """The check itself: two packages importing each other are reported."""
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.a.x", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a.x", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert package_cycles(graph, "pkg") == [["pkg.a", "pkg.b", "pkg.a"]]
