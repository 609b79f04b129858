"""The `Idempotency-Key` of ARI pushes (contract 12.4), as the IETF draft and Stripe define it:
a push whose 202 was lost in transit is sent again with the same key, and answered with the
first batch instead of storing a second.

The key is taken in the transaction that stores the batch (batches.py), so a push refused
before storing (401, 403, 404, 413, 415, 422, 429, 503) leaves its key unused, and a stored
batch always has its key. Keys belong to the partner and environment; the request they
stand for is its method, path and body bytes (`request_hash`), not its other headers: a
repeat with another `X-Sandbox-Scenario` is the same request and gets the first answer."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from connectivity.auth.authenticate import Caller
from connectivity.store.database import Database
from connectivity.store.queries import queries
from connectivity.store.retention import prune_in_chunks
from connectivity.web.errors import ApiError

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
# Contract 12.4: kept at least 24 hours; `ari prune-items` forgets older ones.
RETENTION_HOURS = 24
PRUNE_CHUNK = 1000


class IdempotencyKeyReused(ApiError):
    code = "idempotency_key_reused"


@dataclass(frozen=True)
class IdempotentRequest:
    """A push sent with a key: the key, and the hash of what it stands for."""
    key: str
    request_hash: bytes

    @classmethod
    def of(cls, key: str, method: str, path: str, body: bytes) -> IdempotentRequest:
        digest = hashlib.sha256()
        for part in (method.encode(), path.encode()):
            # Each part's length first: no two (method, path, body) hash the same bytes.
            digest.update(len(part).to_bytes(4, "big") + part)
        digest.update(body)
        return cls(key, digest.digest())


class KeyTakenMeanwhile(Exception):
    """The key's row on the batch's shard appeared between the look-up and the claim: the
    transaction rolls back (its batch with it) and runs again, to find that row."""


def earlier_answer(conn, caller: Caller, request: IdempotentRequest) -> dict | None:
    """Lock the key for this transaction, then: the first answer when the key was used for this
    very request; 422 when it was used for another; None when it is unused."""
    q = queries().ari
    q.lock_idempotency_key(conn, partner_id=caller.partner_id, environment=caller.environment,
                           idempotency_key=request.key)
    earlier = q.find_idempotency_key(conn, partner_id=caller.partner_id,
                                     environment=caller.environment,
                                     idempotency_key=request.key)
    if earlier is None:
        return None
    if bytes(earlier["request_hash"]) != request.request_hash:
        raise IdempotencyKeyReused(
            f"{HEADER} {request.key!r} was used for another request (another path or body); "
            "send a new key for a new request",
            details={"batch_id": earlier["batch_id"]})
    return {"batch_id": earlier["batch_id"], "status": "queued",
            "item_count": earlier["item_count"]}


def claim(conn, caller: Caller, request: IdempotentRequest, *, property_id: int, batch_id: str,
          item_count: int) -> None:
    """Record the key for the batch just stored, on its shard."""
    claimed = queries().ari.claim_idempotency_key(
        conn, property_id=property_id, partner_id=caller.partner_id,
        environment=caller.environment, idempotency_key=request.key,
        request_hash=request.request_hash, batch_id=batch_id, item_count=item_count)
    if claimed is None:
        raise KeyTakenMeanwhile(request.key)


def _prune_chunk(conn, retention_hours: int, max_count: int) -> int:
    return len(queries().ari.prune_idempotency_keys(conn, retention_hours=retention_hours,
                                                   max_count=max_count))


def prune_idempotency_keys(db: Database, retention_hours: int = RETENTION_HOURS,
                           chunk: int = PRUNE_CHUNK) -> int:
    """Forget keys used more than `retention_hours` ago; how many."""
    return prune_in_chunks(db, _prune_chunk, chunk, retention_hours)
