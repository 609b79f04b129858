"""The demo keys of a local stack, kept between starts: an integration configured against
yesterday's `make run` still works today.

The tokens are kept in `<stack folder>/demo-keys.json` (file mode 0600). This is a local
development convenience only: the service itself never keeps a token (the database holds a hash
and the sealed signing secret), and a deployment issues keys with `keys issue`, whose token is
shown once. `make run RESET_KEYS=1` revokes the kept keys and issues new ones."""

from __future__ import annotations

import json
import os
from datetime import datetime, timezone
from pathlib import Path

from connectivity.auth.credentials import SigningVault
from connectivity.auth.keycache import KEY_STATE_CHANGED
from connectivity.auth.scopes import scopes_for
from connectivity.operator.keys import issue_key, list_keys
from connectivity.store.database import announces
from connectivity.store.queries import queries

DEMO_PARTNER = "acme"
DEMO_CHANNEL = "lisboa-cm"  # receives LIS1's bookings (docs/demo-catalog.json)
# name, partner, preset, options. demo-channel is the hotel's channel manager: its mapping of
# LIS1 receives the hotel's bookings as hotel_booking.* events (docs/partners.md 8.1); unsigned,
# so that the walk-through's curl reads them plainly; with content.read beside the push preset,
# so that it can read its mapping (GET /mapping/hotels/CM-LIS) and see `receives_bookings`, as
# the guide tells a channel manager to check.
DEMO_KEYS = (("demo-pull", DEMO_PARTNER, "pull", {}), ("demo-push", DEMO_PARTNER, "push", {}),
             ("demo-channel", DEMO_CHANNEL, "push",
              {"signed": False, "extra_scopes": ("content.read",)}))


def _kept(path: Path) -> dict:
    try:
        kept = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _keep(path: Path, keys: dict) -> None:
    """Written whole under a temporary name created 0600, then renamed: never readable by
    others, never half-written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    temporary.unlink(missing_ok=True)
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(keys, out, indent=2)
    os.replace(temporary, path)


def _usable(conn, partner_codes: set[str]) -> dict[str, set[str]]:
    """{key_id: its scopes} of the partners' keys neither revoked nor expired."""
    now = datetime.now(timezone.utc)
    return {row["key_id"]: set(row["scopes"])
            for partner_code in partner_codes for row in list_keys(conn, partner_code)
            if row["revoked_at"] is None and (row["expires_at"] is None or row["expires_at"] > now)}


@announces(KEY_STATE_CHANGED)  # the revocation must reach every web process's key cache
def _fresh_key(conn, vault: SigningVault, name: str, partner: str, preset: str, options: dict):
    queries().operator.revoke_keys_named(conn, partner_code=partner, name=name)
    return issue_key(conn, vault, partner_code=partner, name=name, environment="sandbox",
                     preset=preset, **options).public()


def demo_keys(db, vault: SigningVault, path: Path, reset: bool = False) -> dict[str, dict]:
    """{name: the key's public() with its token, and "kept": whether it is the one of an
    earlier start}. A kept key is reused while the database holds it unrevoked and unexpired
    and it holds every scope its entry asks for (another database, a revocation, or a key of
    an earlier start issued with fewer scopes gets a new one); `reset` issues new keys,
    revoking the old ones."""
    kept = _kept(path)
    usable = {} if reset else db.run(_usable, {partner for _, partner, _, _ in DEMO_KEYS})
    keys = {}
    for name, partner, preset, options in DEMO_KEYS:
        previous = kept.get(name)
        wanted = set(scopes_for(preset, options.get("extra_scopes", ())))
        key_id = previous.get("key_id") if isinstance(previous, dict) else None
        if key_id in usable and wanted <= usable[key_id]:
            keys[name] = {**previous, "kept": True}
        else:
            keys[name] = {**db.run(_fresh_key, vault, name, partner, preset, options), "kept": False}
        # Kept after each key: a failure further on loses no token already issued.
        _keep(path, {**{n: v for n, v in kept.items() if isinstance(v, dict)},
                     **{n: {k: v for k, v in key.items() if k != "kept"}
                        for n, key in keys.items()}})
    return keys
