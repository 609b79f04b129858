"""The operator CLI without its settings: one line saying what is missing and how to set it,
exit status 1, no traceback (flask --app app, as an operator runs it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("unset, missing", [
    (("DATABASE_URL", "REDIS_URL", "SECRET_KEY"), "DATABASE_URL, REDIS_URL, SECRET_KEY"),
    (("REDIS_URL",), "REDIS_URL"),
])
def test_a_missing_setting_is_one_line_and_exit_1(unset, missing, tmp_path):
    env = {**os.environ, "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",
           "REDIS_URL": "redis://127.0.0.1:1/0", "SECRET_KEY": "k" * 40}
    for name in unset:
        env.pop(name)
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "app", "keys", "list",
                           "--partner", "acme"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"missing required setting(s): {missing}" in lines[0]
    assert ". .local/env" in lines[0] and "DATABASE_URL=" in lines[0]
