"""Each log record is one write: several processes logging to one pipe (as gunicorn's workers
and a platform's log collector do) never produce a line holding two records, also with
PYTHONUNBUFFERED=1, where every write goes to the pipe as it is made."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from bench.server import ROOT

PROCESSES = 4
RECORDS = 5000

_WRITER = f"""
from connectivity.logs import configure_logging
import structlog
configure_logging("INFO")
log = structlog.get_logger("interleaving")
for n in range({RECORDS}):
    log.info("record", n=n, padding="x" * 200)
"""


def test_records_from_several_unbuffered_processes_never_share_a_line():
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    read, write = os.pipe()
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER], cwd=ROOT, env=env,
                                stdout=write) for _ in range(PROCESSES)]
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        lines = pipe.read().splitlines()
    assert [w.wait(60) for w in writers] == [0] * PROCESSES
    merged = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            merged.append(line)
            continue
        assert record["event"] == "record"
    assert (len(merged), len(lines)) == (0, PROCESSES * RECORDS), merged[:3]
