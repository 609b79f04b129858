"""Re-encrypting the keys' signing secrets, the webhook endpoints' secrets and the confirmation
numbers' key under the current SECRET_KEY (`keys reencrypt`, the middle step of a rotation:
docs/operations.md, "Rotating SECRET_KEY").

Safe while the service runs: the secret inside does not change, so a key signs the same before,
during and after; a web process holding the previous key opens either sealing. Each batch is its
own short transaction, and a secret is replaced only over the ciphertext that was read. Not
announced to the key caches (auth/keycache.py): a cached copy sealed under a key the process
still holds opens as before, and a refusal found on a copy is decided again on the row as
PostgreSQL has it now, so a copy can never refuse a resealed key.

Idempotent: a row records which key sealed it, and only rows another key sealed are read."""

from __future__ import annotations

from dataclasses import dataclass, field

from connectivity.auth.credentials import SigningVault
from connectivity.store.database import Database
from connectivity.store.queries import queries

DEFAULT_BATCH_SIZE = 500


@dataclass
class ResealReport:
    resealed: int = 0
    # Keys (and webhook endpoints, `we_...`, and `confirmation_key`) no key this process holds
    # opens: sealed under a key already dropped (or SECRET_KEY_PREVIOUS is incomplete). They
    # cannot sign until reissued (recreated); left as they are (the confirmation key cannot be
    # made again: its SECRET_KEY must come back, or no booking can be made).
    unopened: list[str] = field(default_factory=list)
    # Keys still sealed under another key after the run (the unopened, and any issued meanwhile
    # by a process still on the previous key).
    remaining: int = 0


def reencrypt_signing_secrets(db: Database, vault: SigningVault, *,
                              batch_size: int = DEFAULT_BATCH_SIZE) -> ResealReport:
    """Runs one transaction per batch (never one for the whole table: the rows stay locked
    only for as long as one batch takes)."""
    if batch_size < 1:
        raise ValueError("the batch size must be at least 1")
    report = ResealReport()
    for read, reseal in SEALED_SECRETS:
        after = ""
        while True:
            after, done, resealed, unopened = db.run(_reseal_batch, vault, read, reseal, after,
                                                     batch_size)
            # Counted once the batch committed (Database.run may run it again after a deadlock).
            report.resealed += resealed
            report.unopened += unopened
            if done:
                break
    report.remaining = db.run(_count_sealed_otherwise, vault)
    return report


# Each table of sealed secrets: the statement reading a batch another key sealed, the one
# resealing a row (sql/queries/operator/reseal_signing_secrets.sql).
SEALED_SECRETS = (("keys_sealed_otherwise", "reseal_signing_secret"),
                  ("webhook_secrets_sealed_otherwise", "reseal_webhook_secret"),
                  ("confirmation_key_sealed_otherwise", "reseal_confirmation_key"))


def _reseal_batch(conn, vault: SigningVault, read: str, reseal: str, after: str,
                  batch_size: int) -> tuple[str, bool, int, list[str]]:
    q = queries().operator
    rows = getattr(q, read)(conn, sealed_by=vault.sealed_by, after_id=after,
                            batch_size=batch_size)
    resealed, unopened = 0, []
    for row in rows:
        sealed = vault.reseal(row["sealed"])
        if sealed is None:
            unopened.append(row["id"])
        elif getattr(q, reseal)(conn, id=row["id"], sealed_before=row["sealed"], sealed=sealed,
                                sealed_by=vault.sealed_by) is not None:
            resealed += 1
    return (rows[-1]["id"] if rows else after), len(rows) < batch_size, resealed, unopened


def _count_sealed_otherwise(conn, vault: SigningVault) -> int:
    return queries().operator.count_sealed_otherwise(conn, sealed_by=vault.sealed_by)
