"""The walk-through `make run` prints works as printed: run with bash against a live service
(the app on a real socket, the Procfile's worker applying the pushed batch)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from connectivity.operator.demo_ari import seed_demo_ari
from devtools.walkthrough import next_week_stay, walkthrough
from tests.support.live_service import live_origin, worker  # noqa: F401 - fixtures

TOOLS = ("bash", "curl", "openssl")


def answers(output: str) -> list[dict]:
    """The JSON answers the script printed, in order."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while (start := output.find("{", at)) != -1:
        value, at = decoder.raw_decode(output, start)
        found.append(value)
    return found


def test_the_printed_walkthrough_runs_as_printed(db, catalog, issue, live_origin, worker,
                                                 tmp_path):
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"skipped: the walk-through needs {', '.join(missing)}, not found on PATH")
    now = dt.datetime.now(dt.timezone.utc)
    db.run(seed_demo_ari, now)
    pull, push = issue("pull"), issue("push")
    channel = issue("push", partner="lisboa-cm", signed=False)
    script = walkthrough(live_origin, pull.token, push.key_id, push.token.partition(".")[2],
                         *next_week_stay(now), channel_token=channel.token)
    path = tmp_path / "walkthrough.sh"
    path.write_text(script)
    # python3 is this interpreter; -e: any failed request (curl --fail-with-body) fails the run.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-e", str(path)], capture_output=True, text=True, env=env,
                          timeout=180)
    assert done.returncode == 0, (done.stdout, done.stderr)
    steps = answers(done.stdout)
    ping, search, quote, booking, acknowledged, read, cancel, events, accepted, batch = steps
    # Each step's answer follows its heading: one answer under each of the ten headings.
    assert re.findall(r"(?m)^== (\d+)\. ", done.stdout) == [str(n) for n in range(1, 11)]
    sections = re.split(r"(?m)^== \d+\. .*$", done.stdout)[1:]
    assert [answers(section) for section in sections] == [[a] for a in steps]
    assert all(a["success"] for a in steps)
    # The hotel's code arrives on the booking partner's booking, and stays through the cancel.
    hotel_booking = acknowledged["data"]["hotel_booking"]
    assert (hotel_booking["acknowledged"], hotel_booking["hotel_code"],
            hotel_booking["hotel_confirmation_code"]) == (True, "CM-LIS", "LIS-20417")
    assert read["data"]["booking"]["hotel_confirmation_code"] == "LIS-20417"
    assert read["data"]["booking"]["hotel_acknowledged_at"] == hotel_booking["acknowledged_at"]
    assert cancel["data"]["booking"]["hotel_confirmation_code"] == "LIS-20417"
    # The booking reached the hotel's channel manager, in its codes, then its cancellation.
    arrived = [(e["type"], e["data"]["booking"]["confirmation_number"],
                e["data"]["booking"]["hotel_code"]) for e in events["data"]["events"]]
    number = booking["data"]["booking"]["confirmation_number"]
    assert arrived == [("hotel_booking.confirmed", number, "CM-LIS"),
                       ("hotel_booking.cancelled", number, "CM-LIS")]
    assert [h["available"] for h in search["data"]["hotels"]] == [True, True]
    assert booking["data"]["booking"]["status"] == "confirmed"
    assert booking["data"]["booking"]["total_amount"] == quote["data"]["total_amount"]
    assert cancel["data"]["booking"]["status"] == "cancelled"
    assert accepted["data"]["status"] == "queued"
    assert (batch["data"]["status"], batch["data"]["applied_count"]) == ("applied", 1)
    # Nothing in the script is a placeholder left for the reader to fill.
    assert not re.search(r"<[a-z_]+>|\{[a-z_]+\}", script)
