"""Key identifiers and secrets: how they are made, how the secret is kept without being stored,
and how a presented secret is checked.

The secret is shown once, at issue. The database holds its SHA-256 (enough for a secret of 262
random bits: there is nothing to brute-force) and, because HMAC verification needs the secret
itself, a copy encrypted with a key derived from the service's SECRET_KEY.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import string
from collections.abc import Sequence

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

BASE62 = string.ascii_letters + string.digits
KEY_ID_PREFIX = {"sandbox": "sbx_", "production": "live_"}
KEY_ID_RANDOM_CHARS = 24
SECRET_CHARS = 44  # 44 x log2(62) = 262 bits

_DUMMY_HASH = hashlib.sha256(b"no such key").digest()


def _random_base62(n: int) -> str:
    return "".join(secrets.choice(BASE62) for _ in range(n))


def new_key_id(environment: str) -> str:
    return KEY_ID_PREFIX[environment] + _random_base62(KEY_ID_RANDOM_CHARS)


def new_secret() -> str:
    return _random_base62(SECRET_CHARS)


def hash_secret(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def secret_matches(presented: str, stored_hash: bytes | None) -> bool:
    """Constant-time; an unknown key is compared against a dummy so it costs the same."""
    return hmac.compare_digest(hash_secret(presented), stored_hash or _DUMMY_HASH) and (
        stored_hash is not None)


def split_token(token: str) -> tuple[str, str] | None:
    key_id, dot, secret = token.partition(".")
    if not dot or not key_id or not secret:
        return None
    return key_id, secret


class SigningVault:
    """Encrypts and decrypts the HMAC signing secret of each key.

    A secret is sealed under the current SECRET_KEY; it opens under that key or any previous one
    (SECRET_KEY_PREVIOUS), so a rotation breaks no key while `keys reencrypt` reseals them. The
    row records which key sealed it (`sealed_by`, a fingerprint: re-encrypting skips what the
    current key sealed already, so it can run again)."""

    def __init__(self, secret_key: str, previous: Sequence[str] = ()):
        self._current = _fernet(secret_key)
        self.sealed_by = key_fingerprint(secret_key)
        self._any = MultiFernet([self._current, *(_fernet(k) for k in previous)])

    def seal(self, secret: str) -> bytes:
        return self._current.encrypt(secret.encode())

    def open(self, sealed: bytes) -> str | None:
        try:
            return self._any.decrypt(bytes(sealed)).decode()
        except InvalidToken:
            # Sealed under a SECRET_KEY this process no longer holds: the key cannot sign until
            # it is reissued.
            return None

    def reseal(self, sealed: bytes) -> bytes | None:
        """The same secret sealed under the current key; None when no key held here opens it."""
        try:
            return self._any.rotate(bytes(sealed))
        except InvalidToken:
            return None


def _fernet(secret_key: str) -> Fernet:
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                   info=b"connectivity/key-signing-secret/v1").derive(secret_key.encode())
    return Fernet(base64.urlsafe_b64encode(derived))


def key_fingerprint(secret_key: str) -> str:
    """Names a SECRET_KEY in the database without revealing it: 16 hex digits of a derivation
    of its own, independent of the sealing key's."""
    return HKDF(algorithm=hashes.SHA256(), length=8, salt=None,
                info=b"connectivity/key-signing-secret/fingerprint/v1").derive(
                    secret_key.encode()).hex()
