"""The change feed's cursor (connectivity/availability/feed_cursor.py): packed so that a position
per node of a Citus cluster fits the contract's 200 characters; earlier forms still read."""

from __future__ import annotations

import pytest
from itsdangerous import URLSafeSerializer

from connectivity.availability.feed_cursor import (
    MAX_CURSOR_LENGTH,
    CursorExpired,
    CursorSigner,
    Position,
)

SIGNER = CursorSigner("k")


def test_nine_positions_with_realistic_values_fit_the_contracts_bound():
    """A coordinator and eight workers, each with transaction ids near 2^35 and change ids near
    2^42 (years of a busy cluster), a partner id near 2^31."""
    positions = {origin: Position(2**35 - origin, 2**42 - origin) for origin in range(9)}
    cursor = SIGNER.dump(2**31 - 1, "production", positions)
    assert len(cursor) <= MAX_CURSOR_LENGTH, len(cursor)
    assert SIGNER.load(cursor, 2**31 - 1, "production") == positions


@pytest.mark.parametrize("n", [0, 1, 127, 128, 300, 16384, 2**63 - 1, 2**64])
def test_numbers_of_every_size_come_back(n):
    cursor = SIGNER.dump(7, "sandbox", {0: Position(n, n), 3: Position(1, n)})
    assert SIGNER.load(cursor, 7, "sandbox") == {0: Position(n, n), 3: Position(1, n)}


def test_a_cursor_is_bound_to_its_partner_and_environment():
    cursor = SIGNER.dump(7, "sandbox", {0: Position(5, 1)})
    for partner, environment in ((8, "sandbox"), (7, "production")):
        with pytest.raises(CursorExpired):
            SIGNER.load(cursor, partner, environment)
    with pytest.raises(CursorExpired):
        CursorSigner("another key").load(cursor, 7, "sandbox")


def test_a_forged_payload_is_refused():
    cursor = SIGNER.dump(7, "sandbox", {0: Position(5, 1)})
    signature = cursor.split(".")[1]
    other = SIGNER.dump(8, "sandbox", {0: Position(5, 1)}).split(".")[0]
    with pytest.raises(CursorExpired):
        SIGNER.load(f"{other}.{signature}", 8, "sandbox")


def test_cursors_of_the_earlier_forms_still_read():
    """v2 (the same fields as JSON) and v1 (one position: origin 0's, from before Citus)."""
    v2 = URLSafeSerializer("k", salt="pcs.change-feed-cursor.v2").dumps(
        [7, "sandbox", 0, 5, 1, 2, 9, 0])
    assert SIGNER.load(v2, 7, "sandbox") == {0: Position(5, 1), 2: Position(9, 0)}
    v1 = URLSafeSerializer("k", salt="pcs.change-feed-cursor.v1").dumps([7, "sandbox", 812, 9])
    assert SIGNER.load(v1, 7, "sandbox") == {0: Position(812, 9)}
    with pytest.raises(CursorExpired):
        SIGNER.load(v2, 8, "sandbox")


def test_a_cursor_signed_before_a_rotation_reads_while_its_key_is_previous():
    """SECRET_KEY_PREVIOUS (docs/operations.md 5.4): the old key verifies, the new one signs."""
    positions = {0: Position(5, 1)}
    old = CursorSigner("old key").dump(7, "sandbox", positions)
    rotating = CursorSigner(["old key", "new key"])
    assert rotating.load(old, 7, "sandbox") == positions
    new = rotating.dump(7, "sandbox", positions)
    assert CursorSigner("new key").load(new, 7, "sandbox") == positions
    with pytest.raises(CursorExpired):
        CursorSigner("new key").load(old, 7, "sandbox")  # once the old key is dropped
    v1 = URLSafeSerializer("old key", salt="pcs.change-feed-cursor.v1").dumps([7, "sandbox", 8, 9])
    assert rotating.load(v1, 7, "sandbox") == {0: Position(8, 9)}
