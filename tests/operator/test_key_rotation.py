"""Rotating SECRET_KEY without downtime (docs/operations.md, "Rotating SECRET_KEY"): keys,
quote tokens and feed cursors issued under key A keep working once B is current with A
previous; `keys reencrypt` reseals every signing secret under B (idempotent, in batches); with A
dropped, every key still signs, and only what A itself signed (quote tokens, cursors: short-lived)
stops verifying."""

from __future__ import annotations

import datetime as dt

import pytest
from standardwebhooks import Webhook

from connectivity.auth.credentials import SigningVault, key_fingerprint
from connectivity.operator.key_rotation import reencrypt_signing_secrets
from connectivity.operator.keys import issue_key
from connectivity.settings import Settings, SettingsError
from connectivity.webhooks.delivering import Senders
from tests.operator.conftest import output_of
from tests.support.ari_days import set_plan_days, set_room_days, stay_dates
from tests.support.envelope import (API, assert_envelope_failure, assert_envelope_success,
                                    assert_unauthorized)
from devtools.webhook_receiver import receiver
from tests.support.signing import bearer, signed_headers
from tests.webhooks.delivery import record_event, run_rounds

KEY_A = "rotation-key-A-" + "a" * 32
KEY_B = "rotation-key-B-" + "b" * 32
KEY_C = "rotation-key-C-" + "c" * 32
WHOAMI = f"{API}/whoami"
CHANGES = f"{API}/availability/changes"
START = dt.date.today() + dt.timedelta(days=5)


def _issue(db, secret_key: str, preset: str, **options):
    return db.run(issue_key, SigningVault(secret_key), partner_code="acme", name="rotation",
                  environment="sandbox", preset=preset, rate_limit=100000, **options)


def _quote(client, headers) -> str:
    body = {"hotel_code": "ACME-LIS", "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
            "check_in": START.isoformat(), "check_out": (START + dt.timedelta(days=2)).isoformat(),
            "rooms": 1, "occupancy": [{"adults": 2}]}
    return assert_envelope_success(client.post(f"{API}/bookings/quote", json=body,
                                               headers=headers))["quote_token"]


def _book(client, headers, reference: str, token: str):
    return client.post(f"{API}/bookings", headers=headers, json={
        "partner_reference": reference, "quote_token": token, "hotel_code": "ACME-LIS",
        "room_type_code": "ACME-DBL", "rate_plan_code": "ACME-BAR",
        "check_in": START.isoformat(), "check_out": (START + dt.timedelta(days=2)).isoformat(),
        "rooms": 1, "guests": [{"room_number": 1, "first_name": name, "last_name": "Silva",
                                "is_adult": True} for name in ("Ana", "Rui")],
        "contact": {"first_name": "Ana", "email": "ana@example.com"},
        "total_amount": "200.00", "currency": "EUR"})


def _cursor(client, headers) -> str:
    return assert_envelope_success(client.get(CHANGES, headers=headers))["next_cursor"]


def _follow(client, headers, cursor: str):
    return client.get(f"{CHANGES}?cursor={cursor}", headers=headers)


def _whoami_signed(client, token: str):
    return client.get(WHOAMI, headers=signed_headers(token, "GET", WHOAMI))


def _sealed_by(db) -> list[str | None]:
    return db.run(lambda conn: [r["signing_secret_key_id"] for r in conn.execute(
        "SELECT signing_secret_key_id FROM api_keys ORDER BY key_id")])


def _reencrypt(app, *args: str):
    with app.app_context():
        return app.test_cli_runner().invoke(args=["keys", "reencrypt", *args])


def test_rotation_end_to_end(make_app, db, catalog):
    nights = stay_dates(START, 2)
    set_room_days(db, "LIS1", "DBL", nights, available=5)
    set_plan_days(db, "LIS1", "DBL", "BAR", nights, rate="100.00")
    signed = _issue(db, KEY_A, "push", signed=True)
    pull = bearer(_issue(db, KEY_A, "pull").token)

    # Everything issued under A.
    under_a = make_app(secret_key=KEY_A).test_client()
    assert_envelope_success(_whoami_signed(under_a, signed.token))
    token_a = _quote(under_a, pull)
    cursor_a = _cursor(under_a, pull)

    # B current, A previous: every key, token and cursor of A works; new ones are B's.
    rotating = make_app(secret_key=KEY_B, secret_key_previous=(KEY_A,))
    during = rotating.test_client()
    assert_envelope_success(_whoami_signed(during, signed.token))
    assert_envelope_success(_book(during, pull, "ROT-1", token_a), 201)
    assert_envelope_success(_follow(during, pull, cursor_a))
    token_b = _quote(during, pull)
    cursor_b = _cursor(during, pull)
    issued_during = _issue(db, KEY_B, "push", signed=True)
    assert _sealed_by(db).count(key_fingerprint(KEY_A)) == 2

    # Dropping A before re-encrypting would break the keys A sealed: what the next step fixes.
    assert_unauthorized(_whoami_signed(make_app(secret_key=KEY_B).test_client(), signed.token),
                        "invalid_signature")

    result = _reencrypt(rotating, "--batch-size", "1")
    assert result.exit_code == 0, output_of(result)
    assert "resealed 2 signing secret(s)" in result.output
    assert "0 key(s) or webhook endpoint(s) still sealed under another key" in result.output
    assert set(_sealed_by(db)) == {key_fingerprint(KEY_B)}
    assert_envelope_success(_whoami_signed(during, signed.token))  # while the service runs
    again = _reencrypt(rotating)
    assert again.exit_code == 0 and "resealed 0 signing secret(s)" in again.output

    # A dropped: every key signs; B's tokens and cursors work; A's are refused as unknown.
    after = make_app(secret_key=KEY_B).test_client()
    for key in (signed, issued_during):
        assert_envelope_success(_whoami_signed(after, key.token))
    assert_envelope_success(_book(after, pull, "ROT-2", token_b), 201)
    assert_envelope_success(_follow(after, pull, cursor_b))
    assert_envelope_failure(_book(after, pull, "ROT-3", token_a), 422, "invalid_quote_token")
    assert_envelope_failure(_follow(after, pull, cursor_a), 410, "cursor_expired")


def test_reencrypt_in_batches_reseals_each_key_once(make_app, db, catalog):
    keys = [_issue(db, KEY_A, "push", signed=True) for _ in range(5)]
    vault = SigningVault(KEY_B, (KEY_A,))
    report = reencrypt_signing_secrets(db, vault, batch_size=2)
    assert (report.resealed, report.unopened, report.remaining) == (5, [], 0)
    assert reencrypt_signing_secrets(db, vault, batch_size=2).resealed == 0
    client = make_app(secret_key=KEY_B).test_client()
    for key in keys:
        assert_envelope_success(_whoami_signed(client, key.token))


def test_keys_sealed_before_the_fingerprint_was_recorded_are_resealed(make_app, db, catalog):
    key = _issue(db, KEY_A, "push", signed=True)
    db.run(lambda conn: conn.execute("UPDATE api_keys SET signing_secret_key_id = NULL"))
    report = reencrypt_signing_secrets(db, SigningVault(KEY_A), batch_size=10)
    assert (report.resealed, report.remaining) == (1, 0)
    assert _sealed_by(db) == [key_fingerprint(KEY_A)]
    assert_envelope_success(_whoami_signed(make_app(secret_key=KEY_A).test_client(), key.token))


def test_a_key_no_configured_key_opens_is_reported_and_left(make_app, db, catalog):
    lost = _issue(db, KEY_C, "push", signed=True)
    kept = _issue(db, KEY_A, "push", signed=True)
    rotating = make_app(secret_key=KEY_B, secret_key_previous=(KEY_A,))
    before = db.run(lambda conn: conn.execute(
        "SELECT signing_secret FROM api_keys WHERE key_id = %s", (lost.key_id,)).fetchone())
    result = _reencrypt(rotating)
    assert result.exit_code != 0
    assert lost.key_id in output_of(result) and "resealed 1 signing secret(s)" in result.output
    assert "1 key(s) or webhook endpoint(s) still sealed under another key" in result.output
    assert db.run(lambda conn: conn.execute(
        "SELECT signing_secret FROM api_keys WHERE key_id = %s", (lost.key_id,)).fetchone()) \
        == before
    assert_envelope_success(_whoami_signed(rotating.test_client(), kept.token))


def test_secret_key_previous_setting():
    env = {"DATABASE_URL": "postgresql://x@localhost/x", "REDIS_URL": "redis://localhost",
           "SECRET_KEY": KEY_B}
    assert Settings.from_env(env).secret_keys == (KEY_B,)
    both = Settings.from_env({**env, "SECRET_KEY_PREVIOUS": f" {KEY_A} , {KEY_C},{KEY_B}"})
    assert both.secret_key_previous == (KEY_A, KEY_C)
    assert both.secret_keys[-1] == KEY_B  # itsdangerous signs with the last
    with pytest.raises(SettingsError, match="SECRET_KEY_PREVIOUS"):
        Settings.from_env({**env, "SECRET_KEY_PREVIOUS": "short"})
    assert Settings.from_env(env).privacy_purge_after_days == 365
    thirty = Settings.from_env({**env, "PRIVACY_PURGE_AFTER_DAYS": "30"})
    assert thirty.privacy_purge_after_days == 30
    with pytest.raises(SettingsError, match="PRIVACY_PURGE_AFTER_DAYS"):
        Settings.from_env({**env, "PRIVACY_PURGE_AFTER_DAYS": "0"})


def test_webhook_secrets_are_resealed_and_deliveries_stay_verifiable(make_app, db, catalog):
    """An endpoint created under A: its deliveries verify with the secret shown at creation
    while B is current with A previous, after `keys reencrypt`, and once A is dropped."""
    pull = bearer(_issue(db, KEY_A, "pull").token)
    under_a = make_app(secret_key=KEY_A).test_client()
    with receiver() as hook:
        created = assert_envelope_success(under_a.post(f"{API}/webhook-endpoints", headers=pull,
                                                       json={"url": hook.url,
                                                             "event_types": ["mapping.paused"]}),
                                          201)
        secret = created["secret"]
        sealed_before = _webhook_sealing(db)

        def delivered_under(vault: SigningVault) -> None:
            senders = Senders(db, vault, (1,), concurrency=2, per_endpoint=1, allow_loopback=True)
            try:
                event_id = record_event(db, "mapping.paused", data={"hotel_code": "ACME-LIS"})
                run_rounds(db, senders, lambda: any(
                    r.headers["webhook-id"] == event_id for r in hook.received))
            finally:
                senders.close()
            request = next(r for r in hook.received if r.headers["webhook-id"] == event_id)
            Webhook(secret).verify(request.body, request.headers)

        delivered_under(SigningVault(KEY_B, (KEY_A,)))
        result = _reencrypt(make_app(secret_key=KEY_B, secret_key_previous=(KEY_A,)))
        assert result.exit_code == 0, output_of(result)
        assert "resealed 2 signing secret(s)" in result.output  # the key and the endpoint
        sealed_after = _webhook_sealing(db)
        assert sealed_after["secret_key_id"] == key_fingerprint(KEY_B)
        assert sealed_after["secret_sealed"] != sealed_before["secret_sealed"]
        delivered_under(SigningVault(KEY_B))
        # Sealed under B only: a process still holding A alone cannot open it.
        assert SigningVault(KEY_A).open(sealed_after["secret_sealed"]) is None


def _webhook_sealing(db) -> dict:
    return db.run(lambda conn: conn.execute(
        "SELECT secret_sealed, secret_key_id FROM webhook_endpoints").fetchone())
