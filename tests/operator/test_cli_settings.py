"""The operator CLI without its settings: one line saying what is missing and how to set it,
exit status 1, no traceback (flask --app app, as an operator runs it); `--help` lists the
commands all the same and exits 0."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def flask(*args: str, unset=("DATABASE_URL", "REDIS_URL", "SECRET_KEY")):
    env = {name: value for name, value in os.environ.items() if name not in unset}
    return subprocess.run([sys.executable, "-m", "flask", "--app", "app", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60)


def test_help_without_settings_lists_the_commands_and_exits_0():
    done = flask("--help")
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    listed = re.findall(r"(?m)^  ([a-z-]+) ", done.stdout.partition("Commands:")[2])
    assert {"catalog", "keys", "db", "distribution", "events", "webhooks", "privacy",
            "reconciliation"} <= set(listed), done.stdout
    lines = done.stderr.strip().splitlines()   # one note: what to set before running them
    assert len(lines) == 1 and "missing required setting(s)" in lines[0], done.stderr
    group = flask("catalog", "--help")
    assert group.returncode == 0 and "list" in group.stdout and "Traceback" not in group.stderr


@pytest.mark.parametrize("args", [("catalog", "list"), ("openapi", "print"), ("run",),
                                  ("routes",)])
def test_a_command_without_settings_says_what_to_set(args):
    # openapi (the description needs the app whole), run and routes included.
    done = flask(*args)
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "missing required setting(s)" in lines[0], done.stderr


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
