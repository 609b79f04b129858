"""The metrics directory gunicorn's master prepares before forking its workers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from connectivity.metrics import process_dir


@pytest.fixture(autouse=True)
def environment(monkeypatch):
    """prepare() writes os.environ itself: set first, so that monkeypatch restores it after."""
    for name in (process_dir.ENV, process_dir.OWNED_ENV):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)


def test_without_a_directory_the_master_makes_one_and_removes_it_on_exit():
    directory = Path(process_dir.prepare())
    assert directory.is_dir() and not any(directory.iterdir())
    assert os.environ[process_dir.ENV] == str(directory)
    (directory / "counter_123.db").write_bytes(b"x")
    process_dir.cleanup()
    assert not directory.exists()


def test_an_operators_directory_is_emptied_of_old_values_and_kept(monkeypatch, tmp_path):
    given = tmp_path / "prom"
    given.mkdir()
    (given / "counter_99.db").write_bytes(b"an earlier server's counts")
    (given / "README").write_text("not ours")
    monkeypatch.setenv(process_dir.ENV, str(given))
    assert process_dir.prepare() == str(given)
    assert sorted(p.name for p in given.iterdir()) == ["README"]
    process_dir.cleanup()
    assert given.is_dir()

