"""The demo keys kept between `make run` starts (devtools/demo_keys.py)."""

from __future__ import annotations

import json

from connectivity.auth.credentials import SigningVault
from devtools.demo_keys import demo_keys


def active(db, name: str) -> list[str]:
    with db.connection() as conn:
        return [r["key_id"] for r in conn.execute(
            "SELECT key_id FROM api_keys WHERE name = %s AND revoked_at IS NULL", (name,))]


def test_kept_while_usable_reset_or_revoked_gives_a_new_pair(db, catalog, settings, tmp_path):
    vault, path = SigningVault(settings.secret_key), tmp_path / "demo-keys.json"
    first = demo_keys(db, vault, path)
    assert [k["kept"] for k in first.values()] == [False, False]
    assert path.stat().st_mode & 0o777 == 0o600
    assert json.loads(path.read_text())["demo-push"]["token"] == first["demo-push"]["token"]

    again = demo_keys(db, vault, path)
    assert [k["kept"] for k in again.values()] == [True, True]
    assert {n: k["token"] for n, k in again.items()} == {n: k["token"] for n, k in first.items()}

    reset = demo_keys(db, vault, path, reset=True)
    assert all(not k["kept"] for k in reset.values())
    assert active(db, "demo-pull") == [reset["demo-pull"]["key_id"]]   # the old one revoked
    assert active(db, "demo-push") == [reset["demo-push"]["key_id"]]

    with db.connection() as conn:
        conn.execute("UPDATE api_keys SET revoked_at = now() WHERE key_id = %s",
                     (reset["demo-pull"]["key_id"],))
    after_revoke = demo_keys(db, vault, path)
    assert (after_revoke["demo-pull"]["kept"], after_revoke["demo-push"]["kept"]) == (False, True)
    assert json.loads(path.read_text())["demo-pull"]["key_id"] == \
        after_revoke["demo-pull"]["key_id"]


def test_an_unreadable_file_gives_a_new_pair(db, catalog, settings, tmp_path):
    path = tmp_path / "demo-keys.json"
    path.write_text("not json")
    keys = demo_keys(db, SigningVault(settings.secret_key), path)
    assert [k["kept"] for k in keys.values()] == [False, False]
