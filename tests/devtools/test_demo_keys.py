"""The demo keys kept between `make run` starts (devtools/demo_keys.py): acme's pull and push
keys, and demo-channel, a key of lisboa-cm (LIS1's channel manager, which receives its
bookings)."""

from __future__ import annotations

import json

from connectivity.auth.credentials import SigningVault
from connectivity.operator.keys import issue_key
from devtools.demo_keys import demo_keys
from tests.support.signing import bearer

NAMES = ["demo-pull", "demo-push", "demo-channel"]


def active(db, name: str) -> list[tuple[str, str]]:
    """(key_id, partner code) of the unrevoked keys called `name`."""
    with db.connection() as conn:
        return [(r["key_id"], r["code"]) for r in conn.execute(
            "SELECT k.key_id, p.code FROM api_keys k JOIN partners p ON p.id = k.partner_id "
            "WHERE k.name = %s AND k.revoked_at IS NULL", (name,))]


def test_kept_while_usable_reset_or_revoked_gives_new_keys(db, catalog, settings, tmp_path):
    vault, path = SigningVault(settings.secret_key), tmp_path / "demo-keys.json"
    first = demo_keys(db, vault, path)
    assert list(first) == NAMES
    assert [k["kept"] for k in first.values()] == [False, False, False]
    assert path.stat().st_mode & 0o777 == 0o600
    assert {n: k["token"] for n, k in json.loads(path.read_text()).items()} == \
        {n: k["token"] for n, k in first.items()}
    assert active(db, "demo-channel") == [(first["demo-channel"]["key_id"], "lisboa-cm")]
    assert first["demo-channel"]["requires_signature"] is False

    again = demo_keys(db, vault, path)
    assert [k["kept"] for k in again.values()] == [True, True, True]
    assert {n: k["token"] for n, k in again.items()} == {n: k["token"] for n, k in first.items()}

    reset = demo_keys(db, vault, path, reset=True)
    assert [k["kept"] for k in reset.values()] == [False, False, False]
    assert active(db, "demo-pull") == [(reset["demo-pull"]["key_id"], "acme")]  # old revoked
    assert active(db, "demo-push") == [(reset["demo-push"]["key_id"], "acme")]
    assert active(db, "demo-channel") == [(reset["demo-channel"]["key_id"], "lisboa-cm")]

    for revoked in ("demo-pull", "demo-channel"):
        with db.connection() as conn:
            conn.execute("UPDATE api_keys SET revoked_at = now() WHERE key_id = %s",
                         (reset[revoked]["key_id"],))
        after_revoke = demo_keys(db, vault, path)
        assert after_revoke[revoked]["kept"] is False
        assert [after_revoke[n]["kept"] for n in NAMES if n != revoked] == [True, True]
        assert json.loads(path.read_text())[revoked]["key_id"] == \
            after_revoke[revoked]["key_id"] != reset[revoked]["key_id"]


def test_an_unreadable_file_gives_new_keys(db, catalog, settings, tmp_path):
    path = tmp_path / "demo-keys.json"
    path.write_text("not json")
    keys = demo_keys(db, SigningVault(settings.secret_key), path)
    assert list(keys) == NAMES
    assert [k["kept"] for k in keys.values()] == [False, False, False]
    assert set(json.loads(path.read_text())) == set(NAMES)


def test_the_channel_key_reads_its_mapping_and_sees_it_receives_bookings(db, catalog, settings,
                                                                         client, tmp_path):
    # The guide tells a channel manager to check `receives_bookings` on its mapping: the demo
    # channel manager's key can (content.read), beside its push scopes and hotel_booking.*.
    channel = demo_keys(db, SigningVault(settings.secret_key), tmp_path / "k.json")["demo-channel"]
    assert "content.read" in channel["scopes"] and "reservation.write" in channel["scopes"]
    answer = client.get("/api/connectivity/v1/mapping/hotels/CM-LIS",
                        headers=bearer(channel["token"]))
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["data"]["hotel"]["receives_bookings"] is True


def test_a_kept_key_with_fewer_scopes_than_asked_is_replaced(db, catalog, settings, tmp_path):
    # A demo-channel key kept from a start before it asked for content.read.
    vault, path = SigningVault(settings.secret_key), tmp_path / "demo-keys.json"
    first = demo_keys(db, vault, path)
    older = db.run(issue_key, vault, partner_code="lisboa-cm", name="demo-channel",
                   environment="sandbox", preset="push", signed=False).public()
    path.write_text(json.dumps({**json.loads(path.read_text()), "demo-channel": older}))
    again = demo_keys(db, vault, path)
    assert [again[n]["kept"] for n in NAMES] == [True, True, False]
    assert again["demo-pull"]["token"] == first["demo-pull"]["token"]
    assert "content.read" in again["demo-channel"]["scopes"]
    assert active(db, "demo-channel") == [(again["demo-channel"]["key_id"], "lisboa-cm")]
