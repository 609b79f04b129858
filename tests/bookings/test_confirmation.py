"""Confirmation numbers' key (connectivity/bookings/confirmation.py; issues 17 and 36), in
PostgreSQL: made once, sealed, shared by every process and the same after a SECRET_KEY
rotation, and the numbers bookings are given. The numbering as computed:
test_confirmation_numbers.py."""

from __future__ import annotations

import threading

import psycopg
import pytest

from connectivity.auth.credentials import SigningVault, key_fingerprint
from connectivity.bookings.confirmation import (ConfirmationKey,
                                                Numbering, UnopenableKey, number_text, permute)
from connectivity.operator.key_rotation import reencrypt_signing_secrets
from connectivity.web.services import services_of
from tests.bookings.conftest import booking_body
from tests.support.envelope import API, assert_envelope_success

KEY_A = "confirmation-key-A-" + "a" * 32
KEY_B = "confirmation-key-B-" + "b" * 32


# --- the key, in PostgreSQL ---------------------------------------------------------------------

def _row(services) -> dict:
    with psycopg.connect(services.database_url, row_factory=psycopg.rows.dict_row) as conn:
        return conn.execute("SELECT * FROM confirmation_key").fetchone()


def _sample(numbering: Numbering) -> list[str]:
    return [numbering.confirmation_number(i) for i in range(1, 50)]


def test_the_key_is_made_once_sealed_and_shared(db, services):
    made = []

    def make():
        made.append(ConfirmationKey(db, SigningVault(KEY_A)).numbering())
    racers = [threading.Thread(target=make) for _ in range(4)]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join(30)
    assert len({tuple(_sample(numbering)) for numbering in made}) == 1
    row = _row(services)
    assert row["sealed_by"] == key_fingerprint(KEY_A)
    opened = SigningVault(KEY_A).open(row["sealed"])
    assert len(bytes.fromhex(opened)) == 32
    assert opened.encode() not in bytes(row["sealed"])  # sealed, not stored in the clear
    assert row["keyed_above"] == 0  # no booking id drawn yet


def test_the_key_is_the_same_after_a_secret_key_rotation(db, services):
    before = _sample(ConfirmationKey(db, SigningVault(KEY_A)).numbering())
    rotating = SigningVault(KEY_B, previous=[KEY_A])
    assert _sample(ConfirmationKey(db, rotating).numbering()) == before
    report = reencrypt_signing_secrets(db, rotating)
    assert (report.remaining, report.unopened) == (0, [])
    assert _row(services)["sealed_by"] == key_fingerprint(KEY_B)
    # The old SECRET_KEY dropped: the same key, so the same numbers.
    assert _sample(ConfirmationKey(db, SigningVault(KEY_B)).numbering()) == before


def test_a_key_sealed_under_a_dropped_secret_key_is_refused_by_name(db):
    ConfirmationKey(db, SigningVault(KEY_A)).numbering()
    with pytest.raises(UnopenableKey, match="SECRET_KEY_PREVIOUS"):
        ConfirmationKey(db, SigningVault(KEY_B)).numbering()


def test_a_booking_is_numbered_with_the_deployment_key(make_app, pull, lisbon, db):
    # An app of its own: the session's app keeps the key it read before the tables were emptied.
    app = make_app()
    created = assert_envelope_success(app.test_client().post(
        f"{API}/bookings", json=booking_body(), headers=pull), 201)
    number = created["booking"]["confirmation_number"]
    with db.connection() as conn:
        booking_id = conn.execute("SELECT id FROM bookings WHERE confirmation_number = %s",
                                  (number,)).fetchone()["id"]
    numbering = services_of(app).confirmation_key.numbering()
    assert numbering.keyed_above == 0  # made by this booking, the first one
    assert number == numbering.confirmation_number(booking_id)
    assert number != number_text(permute(booking_id))
