"""docs/partners.md's examples work, each block on its own as a reader copies it: every `sh`
block in a fresh bash, every `python` block in a fresh interpreter (with clients/python
importable), every `js` block in a fresh Node, all against the live service and worker, with the
sandbox's demo data and keys."""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from connectivity.operator.demo_ari import seed_demo_ari
from tests.support.live_service import live_origin, webhook_worker, worker  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "partners.md"
CLIENT_SOURCE = ROOT / "clients" / "python" / "src"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)


def blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(GUIDE.read_text()) if lang == language]


@pytest.fixture
def sandbox(db, catalog, issue, live_origin, worker, webhook_worker, tmp_path):
    db.run(seed_demo_ari, dt.datetime.now(dt.timezone.utc))
    return {**os.environ, "PCS_URL": live_origin, "PCS_PULL_TOKEN": issue("pull").token,
            "PCS_PUSH_TOKEN": issue("push").token,
            # the demo-channel key: lisboa-cm receives ACME-LIS's bookings (section 8.1)
            "PCS_CHANNEL_TOKEN": issue("push", partner="lisboa-cm", signed=False).token,
            "PYTHONPATH": os.pathsep.join([str(CLIENT_SOURCE), os.environ.get("PYTHONPATH", "")]),
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def run(command: list[str], env: dict, cwd: Path) -> str:
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command[0]} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_the_guide_has_examples_of_each_kind():
    assert len(blocks("sh")) >= 5 and len(blocks("python")) >= 8 and len(blocks("js")) >= 1
    # every block is of a kind this test runs: none is left unchecked
    assert {lang for lang, _ in BLOCK.findall(GUIDE.read_text())} == {"sh", "python", "js"}


def each_alone(language: str, command: list[str], suffix: str, env: dict, cwd: Path,
               prologue: str = "") -> str:
    """Every block of the language run alone, in a process of its own; their outputs joined."""
    outputs = []
    for i, block in enumerate(blocks(language)):
        source = cwd / f"guide-{i}{suffix}"
        source.write_text(prologue + block)
        outputs.append(run([*command, str(source)], env, cwd))
    return "\n".join(outputs)


def test_the_shell_examples_run(sandbox, tmp_path):
    for tool in ("bash", "curl", "openssl"):
        if shutil.which(tool) is None:
            pytest.skip(f"skipped: the shell examples need {tool}, not found on PATH")
    out = each_alone("sh", ["bash"], ".sh", sandbox, tmp_path, prologue="set -euo pipefail\n")
    assert '"status":"cancelled"' in out.replace(" ", "")
    assert re.search(r"batch [0-9a-f-]+: applied", out), out[-2000:]
    assert '"available":false' in out.replace(" ", "")  # the sold_out scenario
    assert re.search(r"(?im)^retry-after: 1", out)


def test_the_python_examples_run(sandbox, tmp_path):
    out = each_alone("python", [sys.executable], ".py", sandbox, tmp_path)
    assert "penalty: 0" in out and "the price is now" in out
    assert "webhook received: ping deliveries: 2" in out
    assert "event: booking.confirmed" in out and "event: booking.cancelled" in out
    assert "hotel booking: CM-LIS CM-DBL CM-BAR from Acme Travel" in out
    # 8.2: the channel manager's loop, a cancellation racing it included
    assert "status changed to cancelled - loading it again" in out
    assert "left to acknowledge: 0" in out and "acme sees the hotel's code: True" in out


def test_the_javascript_examples_run(sandbox, tmp_path):
    if shutil.which("node") is None:
        pytest.skip("skipped: the JavaScript examples need node, not found on PATH")
    major = int(run(["node", "-p", "process.versions.node.split('.')[0]"], sandbox, tmp_path))
    if major < 18:
        pytest.skip(f"skipped: the JavaScript examples need Node 18 or later (fetch), not {major}")
    for i, block in enumerate(blocks("js")):
        source = tmp_path / f"guide-{i}.js"
        source.write_text(block)
        out = run(["node", str(source)], sandbox, tmp_path)
        assert out.startswith("200 ")
