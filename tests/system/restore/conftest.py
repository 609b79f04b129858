"""The restore drill runs on PostgreSQL servers of its own, from the embedded PostgreSQL's
binaries (pgserver ships initdb, pg_basebackup and pg_ctl): without them it is skipped."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest


def _pg_bin() -> Path | None:
    try:
        import pgserver
    except ImportError:
        return None
    folder = Path(pgserver.__file__).resolve().parent / "pginstall" / "bin"
    return folder if all((folder / p).exists() for p in ("initdb", "pg_basebackup",
                                                         "pg_ctl")) else None


@pytest.fixture
def drill_root():
    if _pg_bin() is None:
        pytest.skip("the restore drill needs the embedded PostgreSQL's initdb, pg_basebackup "
                    "and pg_ctl (pip install pgserver, requirements-local.txt)")
    # Not under pytest's tmp_path: as root the servers run as another user, who must reach it.
    root = Path(tempfile.mkdtemp(prefix="pcs-restore-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
